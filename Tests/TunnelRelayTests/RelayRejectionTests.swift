import HybridCore
import HybridTransport
import TestLoopbackRelay
import Testing

@testable import TunnelRelay

@Suite(.timeLimit(.minutes(5)))
struct RelayRejectionTests {
    /// Sends `request` on a raw connection and returns the response status.
    static func status(port: Int, _ request: String) async throws -> Int? {
        try await RawConnection.with(port: port) { raw async throws in
            // A connection refused at accept may be closed before the request is written; the
            // answer is still read.
            try? await raw.send(request)
            return try await raw.readResponseHead().httpStatus
        }
    }

    static let someTunnel = String(repeating: "AB", count: 16)

    @Test(arguments: [
        "/",
        "/cable/new/",
        "/cable/new/C0FFEE",
        "/cable/new/\(someTunnel)/",
        "/cable/new/\(someTunnel)/extra",
        "/cable/new/../new/\(someTunnel)",
        "/cable/connect/C0FFEE/\(someTunnel)/1234",
        "/cable/connect/C0FF/\(someTunnel)",
        "/cable/connect/C0FFEE/" + String(repeating: "0", count: 2000),
        "/cable/" + String(repeating: "x", count: 5000),
        "/cable/new/%41B" + String(repeating: "AB", count: 15),
    ])
    func malformedPathsAre400WithoutTouchingTheRegistry(path: String) async throws {
        try await RelayTest.withRelay { relay, origin async throws in
            let status = try await Self.status(port: origin.effectivePort, RawConnection.upgradeRequest(path: path))
            #expect(status == (path == "/" ? 404 : 400))
            #expect(relay.tunnelCounts == (pending: 0, paired: 0))
        }
    }

    @Test func queryStringIsIgnored() async throws {
        try await RelayTest.withRelay { relay, origin async throws in
            try await RawConnection.with(port: origin.effectivePort) { raw async throws in
                try await raw.send(RawConnection.upgradeRequest(path: "/cable/new/\(Self.someTunnel)?x=1"))
                #expect(try await raw.readResponseHead().httpStatus == 101)
                #expect(relay.tunnelCounts.pending == 1)
            }
        }
    }

    @Test func missingSubprotocolIs400() async throws {
        try await RelayTest.withRelay { relay, origin async throws in
            let path = "/cable/new/\(Self.someTunnel)"
            #expect(
                try await Self.status(
                    port: origin.effectivePort, RawConnection.upgradeRequest(path: path, subprotocol: nil)) == 400)
            #expect(
                try await Self.status(
                    port: origin.effectivePort, RawConnection.upgradeRequest(path: path, subprotocol: "chat")) == 400)
            #expect(relay.tunnelCounts.pending == 0)
            // Offered among others, it is accepted and selected alone.
            try await RawConnection.with(port: origin.effectivePort) { raw async throws in
                try await raw.send(RawConnection.upgradeRequest(path: path, subprotocol: "chat, fido.cable"))
                let head = try await raw.readResponseHead()
                #expect(head.httpStatus == 101)
                #expect(head.contains("Sec-WebSocket-Protocol: fido.cable\r\n"))
            }
        }
    }

    /// An upgrade request that declares a body (RFC 9112 §6.3: Transfer-Encoding or a nonzero
    /// Content-Length) is refused: after a 101 those bytes would be read as WebSocket frames.
    @Test(arguments: [
        "Content-Length: 5\r\n", "Transfer-Encoding: chunked\r\n", "Content-Length: 0\r\nContent-Length: 7\r\n",
    ])
    func upgradeWithABodyIs400(bodyHeader: String) async throws {
        try await RelayTest.withRelay { relay, origin async throws in
            // The upgrade's header lines without the blank line that ends them.
            let upgrade = RawConnection.upgradeRequest(path: "/cable/new/\(Self.someTunnel)")
            let headerLines = String(decoding: upgrade.utf8.dropLast(2), as: UTF8.self)
            #expect(try await Self.status(port: origin.effectivePort, headerLines + bodyHeader + "\r\nhello") == 400)
            #expect(relay.tunnelCounts == (pending: 0, paired: 0))
            // An explicit empty body is no body.
            try await RawConnection.with(port: origin.effectivePort) { raw async throws in
                try await raw.send(headerLines + "Content-Length: 0\r\n\r\n")
                #expect(try await raw.readResponseHead().httpStatus == 101)
            }
        }
    }

    @Test func nonGetIs405AndPlainGetIs400() async throws {
        try await RelayTest.withRelay { _, origin async throws in
            let path = "/cable/new/\(Self.someTunnel)"
            #expect(
                try await Self.status(
                    port: origin.effectivePort, RawConnection.upgradeRequest(path: path, method: "POST")) == 405)
            #expect(try await Self.status(port: origin.effectivePort, "GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n") == 400)
            #expect(try await Self.status(port: origin.effectivePort, "NONSENSE\r\n\r\n") == 400)
        }
    }

    @Test func duplicatePendingTunnelIs409() async throws {
        try await RelayTest.withRelay { _, origin async throws in
            let tunnelID = RelayTest.randomTunnelID()
            try await RelayTest.client.withConnection(to: RelayTest.newURL(origin, tunnelID)) { _ async throws in
                await #expect(throws: TunnelClientError.httpStatus(409)) {
                    try await RelayTest.client.withConnection(to: RelayTest.newURL(origin, tunnelID)) {
                        _ async throws in
                    }
                }
            }
        }
    }

    @Test func unknownOrMismatchedConnectIs404() async throws {
        try await RelayTest.withRelay { relay, origin async throws in
            let tunnelID = RelayTest.randomTunnelID()
            try await RelayTest.client.withConnection(to: RelayTest.newURL(origin, tunnelID)) { phone async throws in
                let routingID = try phone.routingID()
                let wrongRoutingID = try #require(
                    RoutingID(bytes: [routingID.bytes[0], routingID.bytes[1], routingID.bytes[2] ^ 1]))
                await #expect(throws: TunnelClientError.httpStatus(404)) {
                    try await RelayTest.client.withConnection(
                        to: RelayTest.connectURL(origin, wrongRoutingID, tunnelID)
                    ) { _ async throws in }
                }
                await #expect(throws: TunnelClientError.httpStatus(404)) {
                    try await RelayTest.client.withConnection(
                        to: RelayTest.connectURL(origin, routingID, RelayTest.randomTunnelID())
                    ) { _ async throws in }
                }
                // The right pair still works afterwards, and only once.
                try await RelayTest.client.withConnection(to: RelayTest.connectURL(origin, routingID, tunnelID)) {
                    _ async throws in
                    await #expect(throws: TunnelClientError.httpStatus(404)) {
                        try await RelayTest.client.withConnection(to: RelayTest.connectURL(origin, routingID, tunnelID))
                        { _ async throws in }
                    }
                }
            }
            #expect(relay.metricsText().contains(#"relay_rejects_total{reason="unknown_tunnel"} 3"#))
        }
    }

    @Test func contactIsNotSupported() async throws {
        try await RelayTest.withRelay { _, origin async throws in
            let url = TunnelURL(origin: origin, path: .contact(Array("contact-id".utf8)))
            await #expect(throws: TunnelClientError.httpStatus(501)) {
                try await RelayTest.client.withConnection(to: url) { _ async throws in }
            }
        }
    }

    @Test func pendingCapIs503() async throws {
        try await RelayTest.withRelay({ $0.maxPendingTunnels = 1 }) { _, origin async throws in
            try await RelayTest.client.withConnection(to: RelayTest.newURL(origin, RelayTest.randomTunnelID())) {
                _ async throws in
                await #expect(throws: TunnelClientError.httpStatus(503)) {
                    try await RelayTest.client.withConnection(to: RelayTest.newURL(origin, RelayTest.randomTunnelID()))
                    { _ async throws in }
                }
            }
        }
    }

    @Test func connectionCapIs503() async throws {
        try await RelayTest.withRelay({ $0.maxConnections = 1 }) { _, origin async throws in
            try await RelayTest.client.withConnection(to: RelayTest.newURL(origin, RelayTest.randomTunnelID())) {
                _ async throws in
                #expect(
                    try await Self.status(port: origin.effectivePort, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n") == 503
                )
            }
        }
    }

    @Test func perIPRateLimitIs429() async throws {
        try await RelayTest.withRelay({
            $0.connectionsPerSecondPerIP = 0.001
            $0.connectionBurstPerIP = 2
        }) { relay, origin async throws in
            let request = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
            #expect(try await Self.status(port: origin.effectivePort, request) == 200)
            #expect(try await Self.status(port: origin.effectivePort, request) == 200)
            #expect(try await Self.status(port: origin.effectivePort, request) == 429)
            #expect(relay.metricsText().contains(#"relay_rejects_total{reason="rate_limited"} 1"#))
        }
    }

    @Test func slowUpgradeIsCutOff() async throws {
        try await RelayTest.withRelay({ $0.handshakeTimeout = .seconds(1) }) { relay, origin async throws in
            try await RawConnection.with(port: origin.effectivePort) { raw async throws in
                // Half a request head, then nothing: a slowloris. On a loaded machine the relay may
                // already have answered 408 and closed before this write; the answer is still read.
                try? await raw.send("GET /cable/new/\(Self.someTunnel) HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                let response = String(decoding: await raw.readToEnd(), as: UTF8.self)
                #expect(response.httpStatus == 408)
            }
            // The relay's side of the close may finish a moment after the client saw EOF.
            try await relay.allConnectionsClosed()
        }
    }

    /// `/metrics` is not on the tunnel port, whatever the configuration: by default it is not
    /// served at all (``RelayConfiguration/metricsPort`` is `nil`), with a metrics port it is
    /// served there only (``RelayMetricsListenerTests``).
    @Test(arguments: [nil, 0] as [Int?])
    func metricsAreNotOnTheTunnelPort(metricsPort: Int?) async throws {
        try await RelayTest.withRelay({ $0.metricsPort = metricsPort }) { relay, origin async throws in
            #expect((relay.metricsPort != nil) == (metricsPort != nil))
            let text = try await RawConnection.with(port: origin.effectivePort) { raw async throws in
                try await raw.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
                return String(decoding: await raw.readToEnd(), as: UTF8.self)
            }
            #expect(text.httpStatus == 404)
            #expect(!text.contains("relay_"), "metrics on the tunnel port")
        }
    }

    /// `/healthz` on the public port is the status alone: `ok`, no counts of tunnels, even with a
    /// tunnel pending.
    @Test func healthCarriesNoCounts() async throws {
        try await RelayTest.withRelay { relay, origin async throws in
            try await RelayTest.client.withConnection(to: RelayTest.newURL(origin, RelayTest.randomTunnelID())) {
                _ async throws in
                #expect(relay.tunnelCounts.pending == 1)
                let answer = try await RawConnection.with(port: origin.effectivePort) { raw async throws in
                    try await raw.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                    return String(decoding: await raw.readToEnd(), as: UTF8.self)
                }
                #expect(answer.httpStatus == 200)
                #expect(answer.split(separator: "\r\n\r\n", maxSplits: 1).last == "ok\n")
            }
        }
    }
}
