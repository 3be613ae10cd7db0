import NIOCore

/// How the server ended a tunnel connection: the close code and reason of its close frame.
public struct TunnelCloseInfo: Equatable, Sendable, CustomStringConvertible {
    /// The close code (1000 normal, 1008 policy, 4xxx relay-specific, …); `nil` if the frame had none.
    public var code: UInt16?
    /// The close reason text, possibly empty.
    public var reason: String

    /// A close frame's code and reason.
    public init(code: UInt16?, reason: String) {
        self.code = code
        self.reason = reason
    }

    /// Parses the payload of a close frame (2-byte code, then UTF-8 reason).
    init(closeFrameData data: ByteBuffer) {
        var data = data
        let code: UInt16? = data.readInteger()
        self.init(code: code, reason: data.readString(length: data.readableBytes) ?? "")
    }

    /// `close CODE REASON`, for logs.
    public var description: String { "close \(code.map(String.init) ?? "-") \(reason)" }
}
