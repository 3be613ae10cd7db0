import HybridCore
import NIOCore
import NIOPosix

/// A bare TCP connection for requests our client would never send: malformed HTTP, text frames,
/// half-written request heads, abrupt drops.
final class RawConnection {
    private var iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private let channel: any Channel
    /// Bytes received and not yet consumed by a `read…` call.
    private(set) var received: [UInt8] = []
    private(set) var sawEOF = false

    private init(
        inbound: NIOAsyncChannelInboundStream<ByteBuffer>,
        outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>,
        channel: any Channel
    ) {
        self.iterator = inbound.makeAsyncIterator()
        self.outbound = outbound
        self.channel = channel
    }

    /// Connects from `source` (another loopback address, such as 127.0.0.2, is another client
    /// to the relay) to 127.0.0.1:`port`, runs `body`, then closes.
    @discardableResult
    static func with<Result: Sendable>(
        port: Int,
        from source: String = "127.0.0.1",
        _ body: (RawConnection) async throws -> Result
    ) async throws -> Result {
        var bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        if source != "127.0.0.1" {
            // Only when asked: binding before connecting takes an ephemeral port whatever the
            // destination, and the many short test connections would run out of them.
            bootstrap = bootstrap.bind(to: try SocketAddress(ipAddress: source, port: 0))
        }
        let channel =
            try await bootstrap
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            try await body(RawConnection(inbound: inbound, outbound: outbound, channel: channel.channel))
        }
    }

    /// Drops the TCP connection at once (no close frame).
    func close() async throws { try await channel.close() }

    func send(_ text: String) async throws { try await send(bytes: Array(text.utf8)) }

    func send(bytes: [UInt8]) async throws { try await outbound.write(ByteBuffer(bytes: bytes)) }

    /// Reads more bytes; returns `false` at EOF (or on a reset).
    private func readMore() async -> Bool {
        guard !sawEOF else { return false }
        do {
            if let buffer = try await iterator.next() {
                received += buffer.readableBytesView
                return true
            }
        } catch {}
        sawEOF = true
        return false
    }

    /// Everything until the server closes the connection.
    func readToEnd() async -> [UInt8] {
        while await readMore() {}
        defer { received = [] }
        return received
    }

    /// Reads an HTTP response head (through the blank line) and returns it as text.
    func readResponseHead() async throws -> String {
        let separator = Array("\r\n\r\n".utf8)
        while true {
            if let range = received.firstRange(of: separator) {
                let head = String(decoding: received[..<range.upperBound], as: UTF8.self)
                received.removeSubrange(..<range.upperBound)
                return head
            }
            guard await readMore() else { throw RawConnectionError.closedEarly }
        }
    }

    /// Reads one unmasked server frame (7-, 16- or 64-bit length): (opcode, payload).
    func readFrame() async throws -> (opcode: UInt8, payload: [UInt8]) {
        while received.count < 2 {
            guard await readMore() else { throw RawConnectionError.closedEarly }
        }
        let lengthBytes =
            switch received[1] & 0x7f {
            case 126: 2
            case 127: 8
            default: 0
            }
        while received.count < 2 + lengthBytes {
            guard await readMore() else { throw RawConnectionError.closedEarly }
        }
        let length =
            lengthBytes == 0
            ? Int(received[1] & 0x7f)
            : received[2..<(2 + lengthBytes)].reduce(0) { $0 << 8 | Int($1) }
        let start = 2 + lengthBytes
        while received.count < start + length {
            guard await readMore() else { throw RawConnectionError.closedEarly }
        }
        let frame = (received[0] & 0x0f, Array(received[start..<(start + length)]))
        received.removeSubrange(..<(start + length))
        return frame
    }

    /// Upgrades to `/cable/new/<tunnelID>` and returns the routing ID from the 101 response.
    func openNewTunnel(_ tunnelID: TunnelID) async throws -> RoutingID {
        try await send(Self.upgradeRequest(path: TunnelPath.new(tunnelID).canonicalPath))
        let head = try await readResponseHead()
        let header = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("x-cable-routing-id:") }
        guard let header, let routingID = RoutingID(hex: header.split(separator: " ").last ?? "") else {
            throw RawConnectionError.noRoutingID
        }
        return routingID
    }

    /// Upgrades to `/cable/connect/<routingID>/<tunnelID>`; throws unless the relay answers 101.
    func openConnectTunnel(_ routingID: RoutingID, _ tunnelID: TunnelID) async throws {
        try await send(Self.upgradeRequest(path: TunnelPath.connect(routingID, tunnelID).canonicalPath))
        guard try await readResponseHead().httpStatus == 101 else { throw RawConnectionError.notUpgraded }
    }

    /// Reads the next frame that is not a ping or pong (the relay pings at any moment of its interval).
    func readDataFrame() async throws -> (opcode: UInt8, payload: [UInt8]) {
        while true {
            let frame = try await readFrame()
            if frame.opcode != 0x9 && frame.opcode != 0xA { return frame }
        }
    }

    /// Reads frames until a close frame and returns its code.
    func readCloseCode() async throws -> UInt16? {
        while true {
            let frame = try await readFrame()
            guard frame.opcode == 0x8 else { continue }
            guard frame.payload.count >= 2 else { return nil }
            return UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1])
        }
    }

    /// The upgrade request for `path`, with the subprotocol unless `subprotocol` is `nil`.
    static func upgradeRequest(path: String, subprotocol: String? = "fido.cable", method: String = "GET") -> String {
        var request = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        if let subprotocol { request += "Sec-WebSocket-Protocol: \(subprotocol)\r\n" }
        return request + "\r\n"
    }

    /// A masked binary frame (FIN set) with a payload of 126…65535 bytes (16-bit length).
    static func maskedBinaryFrame(payload: [UInt8]) -> [UInt8] {
        precondition((126..<65536).contains(payload.count))
        let mask: [UInt8] = [0x11, 0x22, 0x33, 0x44]
        return [0x82, 0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xff)] + mask
            + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    }

    /// A masked client frame (FIN set) with a payload under 126 bytes.
    static func maskedFrame(opcode: UInt8, payload: [UInt8]) -> [UInt8] {
        precondition(payload.count < 126)
        let mask: [UInt8] = [0x11, 0x22, 0x33, 0x44]
        return [0x80 | opcode, 0x80 | UInt8(payload.count)] + mask
            + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    }
}

enum RawConnectionError: Error {
    case closedEarly
    /// The 101 response carried no valid X-caBLE-Routing-ID header.
    case noRoutingID
    /// The relay did not answer the upgrade with 101.
    case notUpgraded
}

extension String {
    /// The status code of an HTTP response head (`HTTP/1.1 404 Not Found` → 404).
    var httpStatus: Int? {
        let parts = split(separator: " ", maxSplits: 2)
        return parts.count >= 2 ? Int(parts[1]) : nil
    }
}
