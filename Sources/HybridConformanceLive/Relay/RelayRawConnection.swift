import HybridConformance
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// A bare TCP (or TLS) connection to the relay, for requests a WebSocket client library would not
/// send (other methods, no subprotocol, malformed paths) and for reading the response head exactly
/// as it came.
final class RelayRawConnection {
    private var iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    let channel: any Channel
    private var received: [UInt8] = []

    private init(
        inbound: NIOAsyncChannelInboundStream<ByteBuffer>, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>,
        channel: any Channel
    ) {
        iterator = inbound.makeAsyncIterator()
        self.outbound = outbound
        self.channel = channel
    }

    /// Connects (TLS with `tls`), runs `body`, then closes. A connection or TLS failure is thrown.
    static func with<Result: Sendable>(
        _ target: RelayTarget,
        tls: TLSConfiguration?,
        timeout: Duration,
        _ body: (RelayRawConnection) async throws -> Result
    ) async throws -> Result {
        let host = target.origin.host
        let sslContext = try tls.map { try NIOSSLContext(configuration: $0) }
        let serverHostname = (try? SocketAddress(ipAddress: host, port: 0)) == nil ? host : nil
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(TimeAmount(timeout))
            .connect(host: host, port: target.origin.effectivePort) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let sslContext {
                        let handler = try NIOSSLClientHandler(context: sslContext, serverHostname: serverHostname)
                        try channel.pipeline.syncOperations.addHandler(handler)
                    }
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            try await body(RelayRawConnection(inbound: inbound, outbound: outbound, channel: channel.channel))
        }
    }

    func send(_ text: String) async throws { try await outbound.write(ByteBuffer(string: text)) }

    /// Reads a response head; `.closedWithoutResponse` if the relay closes first.
    func readResponse() async throws -> RelayRequestOutcome {
        while HTTPResponseHead.endIndex(in: received) == nil {
            guard received.count <= HTTPResponseHead.maxLength else { return .failed("response head over 16 KiB") }
            guard let buffer = try await iterator.next() else {
                return received.isEmpty ? .closedWithoutResponse : .failed("closed inside the response head")
            }
            received += buffer.readableBytesView
        }
        let end = HTTPResponseHead.endIndex(in: received) ?? received.count
        defer { received.removeFirst(end) }
        do {
            return .response(try HTTPResponseHead(parsing: received))
        } catch {
            return .failed("\(error)")
        }
    }

    /// Sends one masked client frame (after a 101).
    func sendFrame(opcode: UInt8, payload: [UInt8]) async throws {
        var generator = SystemRandomNumberGenerator()
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try await outbound.write(
            ByteBuffer(bytes: WebSocketWireFrame.masked(opcode: opcode, payload: payload, mask: mask)))
    }

    /// Reads the next server frame; `nil` when the connection ends first.
    func readFrame() async throws -> WebSocketWireFrame.Parsed? {
        while true {
            if let frame = try WebSocketWireFrame.parse(received) {
                received.removeFirst(frame.length)
                return frame
            }
            guard let buffer = try await iterator.next() else { return nil }
            received += buffer.readableBytesView
        }
    }

    /// The negotiated TLS version, once the handshake is done (`nil` for plain TCP).
    func tlsVersion() async -> TLSProtocolVersion? {
        guard let version = try? await channel.nioSSL_tlsVersion().get() else { return nil }
        switch version {
        case .tlsv1: return .tls10
        case .tlsv11: return .tls11
        case .tlsv12: return .tls12
        case .tlsv13: return .tls13
        }
    }
}
