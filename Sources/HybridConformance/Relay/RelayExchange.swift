/// What came back for one HTTP request sent to a relay.
package enum RelayRequestOutcome: Sendable, Equatable {
    /// A response head arrived.
    case response(HTTPResponseHead)
    /// The relay closed the connection without a response.
    case closedWithoutResponse
    /// No usable answer: connecting failed, the head was unparsable, or the step timed out.
    case failed(String)

    /// The response head, if one arrived.
    package var head: HTTPResponseHead? {
        if case .response(let head) = self { head } else { nil }
    }

    /// True when the relay upgraded the connection (status 101).
    package var upgraded: Bool { head?.status == 101 }

    /// A few words for a report: `404 Not Found`, `closed without a response`.
    package var summary: String {
        switch self {
        case .response(let head): head.statusText
        case .closedWithoutResponse: "closed without a response"
        case .failed(let reason): reason
        }
    }
}

/// How a tunnel WebSocket ended, as one side saw it.
package struct RelayCloseObservation: Sendable, Equatable {
    /// Whether the connection ended at all before the step's deadline.
    package var closed: Bool
    /// The code of the relay's close frame; `nil` if it sent none (TCP closed or dropped).
    package var code: UInt16?
    /// Whether a close frame arrived.
    package var sawCloseFrame: Bool

    package init(closed: Bool, code: UInt16?, sawCloseFrame: Bool) {
        self.closed = closed
        self.code = code
        self.sawCloseFrame = sawCloseFrame
    }

    /// `close 4000`, `TCP closed without a close frame`, `still open`.
    package var summary: String {
        guard closed else { return "still open" }
        guard sawCloseFrame else { return "TCP closed without a close frame" }
        return code.map { "close \($0)" } ?? "close frame without a code"
    }
}
