import HybridConformance
import HybridCore
import Testing

/// The sans-IO half: response-head parsing and the judgement of observed exchanges.
@Suite struct RelayJudgeTests {
    static func head(_ text: String) throws -> HTTPResponseHead { try HTTPResponseHead(parsing: Array(text.utf8)) }

    static let good101 = """
        HTTP/1.1 101 Switching Protocols\r
        Upgrade: websocket\r
        Connection: Upgrade\r
        Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r
        Sec-WebSocket-Protocol: fido.cable\r
        X-caBLE-Routing-ID: 2A00FF\r
        \r

        """

    /// RFC 6455 §1.3's worked example.
    @Test func acceptValueMatchesRFC6455() {
        #expect(RelayJudge.expectedAccept(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func parsesHeadKeepingDuplicatesAndIgnoringTheBody() throws {
        let head = try Self.head("HTTP/1.1 404 Not Found\r\nX-A: 1\r\nx-a:  2 \r\n\r\nbody")
        #expect(head.status == 404)
        #expect(head.statusText == "404 Not Found")
        #expect(head.values("X-A") == ["1", "2"])
    }

    @Test func rejectsMalformedHeads() {
        #expect(throws: HTTPResponseHeadError.incomplete) { try Self.head("HTTP/1.1 200 OK\r\n") }
        #expect(throws: HTTPResponseHeadError.badStatusLine("HTTP/1.1 2000 OK")) {
            try Self.head("HTTP/1.1 2000 OK\r\n\r\n")
        }
        #expect(throws: HTTPResponseHeadError.badHeader("no colon")) {
            try Self.head("HTTP/1.1 200 OK\r\nno colon\r\n\r\n")
        }
        #expect(throws: HTTPResponseHeadError.notASCII) {
            try HTTPResponseHead(parsing: Array("HTTP/1.1 200 \u{e9}\r\n\r\n".utf8))
        }
        #expect(throws: HTTPResponseHeadError.tooLong) {
            try Self.head("HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: 20_000) + "\r\n\r\n")
        }
    }

    @Test func goodUpgradePasses() throws {
        let outcome = RelayRequestOutcome.response(try Self.head(Self.good101))
        #expect(RelayJudge.upgrade(outcome, key: RelayUpgradeRequest.key).outcome == .pass)
        #expect(RelayJudge.subprotocol(outcome).outcome == .pass)
        let (verdict, routingID) = RelayJudge.routingIDHeader(outcome)
        #expect(verdict.outcome == .pass)
        #expect(routingID?.bytes == [0x2A, 0x00, 0xFF])
        #expect(RelayJudge.routingIDCase("2A00FF").outcome == .pass)
        #expect(RelayJudge.routingIDCase("2a00ff").outcome == .fail)
    }

    @Test func badUpgradesFail() throws {
        func judge(_ text: String) throws -> (upgrade: CheckOutcome, subprotocol: CheckOutcome, routing: CheckOutcome) {
            let outcome = RelayRequestOutcome.response(try Self.head(text))
            return (
                RelayJudge.upgrade(outcome, key: RelayUpgradeRequest.key).outcome,
                RelayJudge.subprotocol(outcome).outcome, RelayJudge.routingIDHeader(outcome).0.outcome
            )
        }
        let wrongAccept = Self.good101.replacingOccurrences(of: "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", with: "AAAA")
        #expect(try judge(wrongAccept).upgrade == .fail)
        let twoProtocols = Self.good101.replacingOccurrences(of: "fido.cable", with: "fido.cable, chat")
        #expect(try judge(twoProtocols).subprotocol == .fail)
        let noProtocol = Self.good101.replacingOccurrences(of: "Sec-WebSocket-Protocol: fido.cable\r\n", with: "")
        #expect(try judge(noProtocol).subprotocol == .fail)
        let duplicated = Self.good101.replacingOccurrences(
            of: "X-caBLE-Routing-ID: 2A00FF\r\n", with: "X-caBLE-Routing-ID: 2A00FF\r\nx-cable-routing-id: 2A00FF\r\n")
        #expect(try judge(duplicated).routing == .fail)
        for bad in ["2A00F", "2A00FF00", "2A00FG", " "] {
            let text = Self.good101.replacingOccurrences(of: "2A00FF", with: bad)
            #expect(try judge(text).routing == .fail, "\(bad)")
        }
        #expect(try judge("HTTP/1.1 400 Bad Request\r\n\r\n") == (.fail, .fail, .fail))
    }

    @Test func statusAndRefusal() throws {
        let notFound = RelayRequestOutcome.response(try Self.head("HTTP/1.1 404 Not Found\r\n\r\n"))
        let upgraded = RelayRequestOutcome.response(try Self.head(Self.good101))
        #expect(RelayJudge.status(notFound, expected: 404).outcome == .pass)
        #expect(RelayJudge.status(notFound, expected: 409).outcome == .fail)
        #expect(RelayJudge.status(.closedWithoutResponse, expected: 404).outcome == .fail)
        #expect(RelayJudge.refused([("a", notFound), ("b", .closedWithoutResponse)]).outcome == .pass)
        let verdict = RelayJudge.refused([("a", notFound), ("POST", upgraded)])
        #expect(verdict.outcome == .fail)
        #expect(verdict.observed.hasPrefix("upgraded POST"))
        #expect(RelayJudge.refused([("a", .failed("timeout"))]).outcome == .fail)
    }

    @Test func forwarding() {
        let sent: [[UInt8]] = [[1], [2, 2], [3, 3, 3]]
        #expect(RelayJudge.forwarding(sent: sent, received: sent).outcome == .pass)
        let reordered = RelayJudge.forwarding(sent: sent, received: [[2, 2], [1], [3, 3, 3]])
        #expect(reordered.outcome == .fail)
        #expect(reordered.observed.contains("reordered"))
        let short = RelayJudge.forwarding(sent: sent, received: [[1]], ended: "close 1009")
        #expect(short.observed == "1 of 3 messages arrived (close 1009)")
        #expect(RelayJudge.forwarding(sent: sent, received: [[1], [2, 9], [3, 3, 3]]).outcome == .fail)
        #expect(RelayJudge.forwarding(sent: sent, received: sent + [[4]]).outcome == .fail)
    }

    @Test func closeCodes() {
        for code: UInt16 in [1000, 1001, 4000, 4999] { #expect(RelayJudge.isAcceptableCloseCode(code)) }
        for code: UInt16 in [1002, 1005, 1006, 1011, 3999, 5000] { #expect(!RelayJudge.isAcceptableCloseCode(code)) }
        let good = RelayCloseObservation(closed: true, code: 4000, sawCloseFrame: true)
        let dropped = RelayCloseObservation(closed: true, code: nil, sawCloseFrame: false)
        let open = RelayCloseObservation(closed: false, code: nil, sawCloseFrame: false)
        #expect(RelayJudge.closePropagated([("x", good)]).outcome == .pass)
        #expect(RelayJudge.closePropagated([("x", good), ("y", dropped)]).outcome == .fail)
        #expect(RelayJudge.closePropagated([("x", open)]).observed == "x: still open")
    }

    @Test func timingAndTLS() {
        #expect(RelayJudge.atLeast(.seconds(30), .seconds(25), what: "closed").outcome == .pass)
        #expect(RelayJudge.atLeast(.seconds(3), .seconds(25), what: "closed").outcome == .fail)
        #expect(RelayJudge.atLeast(nil, .seconds(25), what: "closed").outcome == .pass)
        #expect(RelayJudge.atMost(nil, .seconds(25), what: "closed").outcome == .fail)
        #expect(
            RelayJudge.atMost(.milliseconds(60_040), .seconds(180), what: "closed").observed
                == "closed after 60.0 s, maximum 180.0 s")
        #expect(RelayJudge.tlsVersion(.tls12).outcome == .pass)
        #expect(RelayJudge.tlsVersion(.tls11).outcome == .fail)
        #expect(RelayJudge.oldTLSRefused(negotiated: .tls11, error: nil).outcome == .fail)
    }

    @Test func targets() throws {
        #expect(
            try RelayTarget(parsing: "https://relay.example").origin
                == TunnelServerOrigin(scheme: .wss, host: "relay.example"))
        #expect(try RelayTarget(parsing: "http://127.0.0.1:8080/").origin.description == "ws://127.0.0.1:8080")
        #expect(throws: RelayTargetError.self) { try RelayTarget(parsing: "ws://h/cable/new") }
        #expect(throws: RelayTargetError.self) { try RelayTarget(parsing: "ftp://h") }
    }

    @Test func catalogueIDsAreUniqueAndPrefixed() {
        let ids = RelayChecks.all.map(\.id)
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.hasPrefix("relay.") })
        #expect(Set(RelayChecks.slow + RelayChecks.tls).isSubset(of: Set(RelayChecks.all)))
    }
}

/// The raw frames the before-pairing check writes and reads, against RFC 6455 §5.7's examples.
@Suite struct WebSocketWireFrameTests {
    @Test func maskedHelloMatchesRFC6455() {
        let frame = WebSocketWireFrame.masked(
            opcode: 0x1, payload: Array("Hello".utf8), mask: [0x37, 0xfa, 0x21, 0x3d])
        #expect(frame == [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58])
    }

    @Test func parsesUnmaskedServerFrames() throws {
        let hello: [UInt8] = [0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f]
        let parsed = try WebSocketWireFrame.parse(hello + [0x8A])
        #expect(
            parsed?.opcode == 0x1 && parsed?.fin == true && parsed?.payload == Array("Hello".utf8)
                && parsed?.length == 7)
        #expect(try WebSocketWireFrame.parse(Array(hello.prefix(6))) == nil)
        let medium = [0x82, 0x7E, 0x01, 0x00] + [UInt8](repeating: 7, count: 256)
        #expect(try WebSocketWireFrame.parse(medium)?.payload.count == 256)
        let large = [0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0] + [UInt8](repeating: 7, count: 65_536)
        #expect(try WebSocketWireFrame.parse(large)?.length == 65_546)
        #expect(throws: WebSocketWireFrameError.maskedServerFrame) {
            try WebSocketWireFrame.parse([0x81, 0x85, 1, 2, 3, 4])
        }
        #expect(throws: WebSocketWireFrameError.tooLong) {
            try WebSocketWireFrame.parse([0x82, 0x7F, 0xFF, 0, 0, 0, 0, 0, 0, 0])
        }
    }

    @Test func maskedLengthsUseTheRightForm() {
        let mask: [UInt8] = [0, 0, 0, 0]
        #expect(
            Array(WebSocketWireFrame.masked(opcode: 2, payload: .init(repeating: 1, count: 126), mask: mask).prefix(4))
                == [0x82, 0xFE, 0x00, 0x7E])
        #expect(
            Array(
                WebSocketWireFrame.masked(opcode: 2, payload: .init(repeating: 1, count: 65_536), mask: mask).prefix(10)
            )
                == [0x82, 0xFF, 0, 0, 0, 0, 0, 1, 0, 0])
    }
}
