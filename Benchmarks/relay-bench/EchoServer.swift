import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// The trivial WebSocket echo on loopback for the "direct" latency baseline: selects
/// `fido.cable` and sends every binary message back.
enum EchoServer {
    static func start() async throws -> any Channel {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 1024)
            .childChannelInitializer { channel in
                let upgrader = NIOWebSocketServerUpgrader(
                    maxFrameSize: 1 << 20,
                    shouldUpgrade: { channel, _ in
                        var headers = HTTPHeaders()
                        headers.add(name: "Sec-WebSocket-Protocol", value: "fido.cable")
                        return channel.eventLoop.makeSucceededFuture(headers)
                    },
                    upgradePipelineHandler: { channel, _ in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(EchoHandler())
                        }
                    }
                )
                return channel.pipeline.configureHTTPServerPipeline(
                    withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in })
                )
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
    }

    private final class EchoHandler: ChannelInboundHandler {
        typealias InboundIn = WebSocketFrame
        typealias OutboundOut = WebSocketFrame

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let frame = Self.unwrapInboundIn(data)
            switch frame.opcode {
            case .binary:
                context.writeAndFlush(
                    Self.wrapOutboundOut(WebSocketFrame(fin: true, opcode: .binary, data: frame.unmaskedData)),
                    promise: nil
                )
            case .ping:
                context.writeAndFlush(
                    Self.wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)),
                    promise: nil
                )
            case .connectionClose:
                let channel = context.channel
                context.writeAndFlush(Self.wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: frame.unmaskedData)))
                    .whenComplete { _ in channel.close(promise: nil) }
            default:
                break
            }
        }
    }
}
