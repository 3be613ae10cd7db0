import HybridCore
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// The authenticator side of a benchmark tunnel: opens `/cable/new` with plain NIO and echoes
/// every binary message in a channel handler, exactly like ``EchoServer``. With it, a relayed
/// round trip differs from a direct one only by the relay's two hops.
enum EchoPhone {
    /// Connects from `localAddress` and returns the routing ID and the open channel.
    static func open(
        relayHost: String = "127.0.0.1",
        relayPort: Int,
        tunnelID: TunnelID,
        localAddress: SocketAddress
    ) async throws -> (RoutingID, any Channel) {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: "\(relayHost):\(relayPort)")
        headers.add(name: "Sec-WebSocket-Protocol", value: TunnelWebSocket.subprotocol)
        let request = HTTPRequestHead(
            version: .http1_1, method: .GET, uri: TunnelPath.new(tunnelID).canonicalPath, headers: headers
        )
        let (channel, upgrade): (any Channel, EventLoopFuture<RoutingID?>) = try await ClientBootstrap(
            group: MultiThreadedEventLoopGroup.singleton
        )
        .channelOption(.socketOption(.so_reuseaddr), value: 1)
        .bind(to: localAddress)
        .connect(host: relayHost, port: relayPort) { channel in
            channel.eventLoop.makeCompletedFuture {
                let upgrader = NIOTypedWebSocketClientUpgrader<RoutingID?>(
                    maxFrameSize: 1 << 20,
                    upgradePipelineHandler: { channel, response in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(EchoHandler())
                            let values = response.headers[TunnelWebSocket.routingIDHeader]
                            return values.count == 1 ? RoutingID(hex: values[0]) : nil
                        }
                    }
                )
                let configuration = NIOTypedHTTPClientUpgradeConfiguration<RoutingID?>(
                    upgradeRequestHead: request,
                    upgraders: [upgrader],
                    notUpgradingCompletionHandler: { channel in channel.eventLoop.makeSucceededFuture(nil) }
                )
                var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: configuration)
                pipeline.leftOverBytesStrategy = .forwardBytes
                let future = try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                    configuration: pipeline
                )
                return (channel, future)
            }
        }
        guard let routingID = try await upgrade.get() else {
            try? await channel.close()
            throw BenchError.phoneUpgradeFailed
        }
        return (routingID, channel)
    }

    private final class EchoHandler: ChannelInboundHandler {
        typealias InboundIn = WebSocketFrame
        typealias OutboundOut = WebSocketFrame

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let frame = Self.unwrapInboundIn(data)
            let opcode: WebSocketOpcode
            switch frame.opcode {
            case .binary, .continuation: opcode = frame.opcode
            case .ping: opcode = .pong
            case .connectionClose:
                context.close(promise: nil)
                return
            default: return
            }
            let reply = WebSocketFrame(fin: frame.fin, opcode: opcode, maskKey: .random(), data: frame.unmaskedData)
            context.writeAndFlush(Self.wrapOutboundOut(reply), promise: nil)
        }
    }
}
