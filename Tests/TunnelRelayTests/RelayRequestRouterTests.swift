import HybridCore
import NIOHTTP1
import Testing

@testable import TunnelRelay

/// ``RelayRequestRouter`` on request heads built field by field, against the server's checks of an
/// opening handshake (RFC 6455 §4.2.1), the list syntax of field values (RFC 9110 §5.6.1: commas,
/// optional whitespace, empty elements) and the rule that an upgrade has no body (RFC 6455 §4.1,
/// RFC 9112 §6.3).
struct RelayRequestRouterTests {
    static let tunnel = TunnelID(bytes: [UInt8](repeating: 0xAB, count: 16))!
    static let path = "/cable/new/" + String(repeating: "AB", count: 16)

    /// The fields Chromium sends, with `changes` applied (a `nil` value removes the field).
    static func route(
        _ changes: [(String, String?)] = [], extra: [(String, String)] = [], version: HTTPVersion = .http1_1,
        uri: String = path
    ) -> RelayRoute {
        var fields: [(String, String)] = [
            ("Host", "cable.ua5v.com"), ("Upgrade", "websocket"), ("Connection", "Upgrade"),
            ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="), ("Sec-WebSocket-Version", "13"),
            ("Sec-WebSocket-Protocol", "fido.cable"),
        ]
        for (name, value) in changes {
            fields.removeAll { $0.0 == name }
            if let value { fields.append((name, value)) }
        }
        let head = HTTPRequestHead(
            version: version, method: .GET, uri: uri, headers: HTTPHeaders(fields + extra))
        return RelayRequestRouter.route(head, conditions: .init())
    }

    @Test func chromiumsRequestIsANewTunnel() {
        #expect(Self.route() == .new(Self.tunnel))
        #expect(Self.route(uri: Self.path + "?x=1") == .new(Self.tunnel))
    }

    /// §4.2.1 items 3 and 4: `websocket` and `Upgrade` compared ASCII case-insensitively, and
    /// `Connection` may list other options.
    @Test(
        arguments: [
            [("Upgrade", "WebSocket")], [("Connection", "upgrade")], [("Connection", "keep-alive, Upgrade")],
            [("Connection", "keep-alive,upgrade ,")], [("Upgrade", " websocket\t")],
        ] as [[(String, String?)]])
    func acceptedSpellings(_ changes: [(String, String?)]) {
        #expect(Self.route(changes) == .new(Self.tunnel))
    }

    /// §4.2.1: HTTP/1.1, the `websocket` upgrade, a `Connection` that names it, version 13, one
    /// key. Tokens are ASCII (RFC 9110 §5.6.2): the Kelvin sign does not fold to `k`.
    @Test(
        arguments: [
            [("Upgrade", nil)], [("Upgrade", "h2c")], [("Upgrade", "websoc\u{212A}et")], [("Connection", nil)],
            [("Connection", "keep-alive")], [("Sec-WebSocket-Version", "8")], [("Sec-WebSocket-Version", nil)],
            [("Sec-WebSocket-Key", nil)], [("Upgrade", "")],
        ] as [[(String, String?)]])
    func refusedUpgrades(_ changes: [(String, String?)]) {
        #expect(Self.route(changes) == .reject(.badRequest))
    }

    @Test func httpOneZeroAndRepeatedFieldsAreRefused() {
        #expect(Self.route(version: .http1_0) == .reject(.badRequest))
        #expect(Self.route(extra: [("Sec-WebSocket-Key", "AQIDBAUGBwgJCgsMDQ4PEA==")]) == .reject(.badRequest))
        #expect(Self.route(extra: [("Sec-WebSocket-Version", "13")]) == .reject(.badRequest))
    }

    /// An upgrade with a declared body is refused; `Content-Length: 0` declares none.
    @Test func declaredBodies() {
        #expect(Self.route(extra: [("Transfer-Encoding", "chunked")]) == .reject(.badRequest))
        #expect(Self.route(extra: [("Content-Length", "5")]) == .reject(.badRequest))
        #expect(Self.route(extra: [("Content-Length", "0")]) == .new(Self.tunnel))
    }

    /// The subprotocol is an exact element of the offered list (RFC 6455 §4.2.1 item 8,
    /// §11.3.4: case-sensitive).
    @Test func subprotocolLists() {
        #expect(Self.route([("Sec-WebSocket-Protocol", "chat, fido.cable")]) == .new(Self.tunnel))
        #expect(Self.route([("Sec-WebSocket-Protocol", " fido.cable ,chat")]) == .new(Self.tunnel))
        #expect(Self.route([("Sec-WebSocket-Protocol", "chat")]) == .reject(.missingSubprotocol))
        #expect(Self.route([("Sec-WebSocket-Protocol", "FIDO.cable")]) == .reject(.missingSubprotocol))
        #expect(Self.route([("Sec-WebSocket-Protocol", nil)]) == .reject(.missingSubprotocol))
    }
}
