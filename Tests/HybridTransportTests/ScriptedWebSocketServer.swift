import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// A tiny WebSocket server on 127.0.0.1:0 that misbehaves on purpose, to test the client: it
/// answers the upgrade with the given headers (or a status), sends scripted frames, and reports
/// every frame it receives.
enum ScriptedWebSocketServer {
    /// What the server does with an upgrade request.
    struct Script: Sendable {
        /// Extra 101 response headers (e.g. the subprotocol, routing IDs).
        var headers: [(String, String)] = [("Sec-WebSocket-Protocol", "fido.cable")]
        /// Frames sent right after the upgrade.
        var frames: [WebSocketFrame] = []
        /// Answer the first binary message by echoing it, then a close frame with this code.
        var echoThenClose: UInt16?
        /// Answer a close frame with the same payload, then close the TCP connection (RFC 6455 §5.5.1).
        var echoClose = false
        /// Drop the TCP connection, without a close frame, on the first binary message.
        var dropOnMessage = false
    }

    @discardableResult
    static func with<Result: Sendable>(
        _ script: Script,
        _ body: (_ port: Int, _ received: AsyncStream<WebSocketFrame>) async throws -> Result
    ) async throws -> Result {
        let (received, continuation) = AsyncStream.makeStream(of: WebSocketFrame.self)
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                let upgrader = NIOWebSocketServerUpgrader(
                    maxFrameSize: 1 << 20,
                    shouldUpgrade: { channel, _ in
                        var headers = HTTPHeaders()
                        for (name, value) in script.headers { headers.add(name: name, value: value) }
                        return channel.eventLoop.makeSucceededFuture(headers)
                    },
                    upgradePipelineHandler: { channel, _ in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHandler(
                                ScriptHandler(script: script, continuation: continuation)
                            )
                        }
                    }
                )
                return channel.pipeline.configureHTTPServerPipeline(
                    withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in })
                )
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        defer {
            continuation.finish()
            server.close(promise: nil)
        }
        return try await body(server.localAddress?.port ?? 0, received)
    }

    /// A server that accepts TCP and never answers (handshake timeouts).
    @discardableResult
    static func withSilentServer<Result: Sendable>(_ body: (_ port: Int) async throws -> Result) async throws -> Result
    {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0)
            .get()
        defer { server.close(promise: nil) }
        return try await body(server.localAddress?.port ?? 0)
    }

    private final class ScriptHandler: ChannelInboundHandler {
        typealias InboundIn = WebSocketFrame
        typealias OutboundOut = WebSocketFrame
        let script: Script
        let continuation: AsyncStream<WebSocketFrame>.Continuation

        init(script: Script, continuation: AsyncStream<WebSocketFrame>.Continuation) {
            self.script = script
            self.continuation = continuation
        }

        func handlerAdded(context: ChannelHandlerContext) {
            for frame in script.frames { context.write(Self.wrapOutboundOut(frame), promise: nil) }
            context.flush()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var frame = Self.unwrapInboundIn(data)
            frame.data = frame.unmaskedData
            frame.maskKey = nil
            continuation.yield(frame)
            if frame.opcode == .binary, script.dropOnMessage {
                context.close(promise: nil)
                return
            }
            if frame.opcode == .connectionClose, script.echoClose {
                let channel = context.channel
                let echo = WebSocketFrame(fin: true, opcode: .connectionClose, data: frame.data)
                context.writeAndFlush(Self.wrapOutboundOut(echo)).whenComplete { _ in channel.close(promise: nil) }
                return
            }
            if frame.opcode == .binary, let code = script.echoThenClose {
                var payload = context.channel.allocator.buffer(capacity: 2)
                payload.writeInteger(code)
                context.write(
                    Self.wrapOutboundOut(WebSocketFrame(fin: true, opcode: .binary, data: frame.data)), promise: nil)
                context.writeAndFlush(
                    Self.wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: payload)),
                    promise: nil)
            }
        }
    }
}
