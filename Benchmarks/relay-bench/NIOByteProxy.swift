import NIOCore
import NIOPosix

/// `relay-bench --byte-proxy-upstream PORT`: the least a SwiftNIO server can do per forwarded
/// frame. It accepts on the listening socket it inherits as standard input, connects each client to
/// 127.0.0.1:PORT on the same event loop, and copies bytes both ways (like nginx and HAProxy after
/// a WebSocket upgrade: no parsing, no unmasking, no limits), with the relay's own socket options
/// and one event loop. In `--compare` it marks the floor below any relay built on NIO.
enum NIOByteProxy {
    static func serve(upstreamPort: Int) async throws -> Never {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server = try await ServerBootstrap(group: group)
            .childChannelOption(.maxMessagesPerRead, value: 4)
            .childChannelOption(.recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65536))
            .childChannelOption(.autoRead, value: false)
            .childChannelInitializer { client in
                ClientBootstrap(group: client.eventLoop)
                    .channelOption(.maxMessagesPerRead, value: 4)
                    .channelOption(.recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65536))
                    .connect(host: "127.0.0.1", port: upstreamPort)
                    .flatMapThrowing { upstream in
                        let (toUpstream, toClient) = ByteGlue.pair()
                        try client.pipeline.syncOperations.addHandler(toUpstream)
                        try upstream.pipeline.syncOperations.addHandler(toClient)
                        try client.syncOptions?.setOption(.autoRead, value: true)
                    }
            }
            .withBoundSocket(0)
            .get()
        try await server.closeFuture.get()
        fatalError("the byte proxy's listening socket closed")
    }
}

/// One direction of a glued pair of connections: what one reads, the other writes; flushed once
/// per read cycle; reading pauses while the partner's socket is full.
private final class ByteGlue: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var partner: ByteGlue?
    private var context: ChannelHandlerContext?
    private var pendingRead = false

    static func pair() -> (ByteGlue, ByteGlue) {
        let first = ByteGlue()
        let second = ByteGlue()
        first.partner = second
        second.partner = first
        return (first, second)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        partner = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        partner?.context?.write(data, promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        partner?.context?.flush()
    }

    func channelInactive(context: ChannelHandlerContext) {
        partner?.context?.close(promise: nil)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { partner?.readIfWanted() }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// Reads only while the partner can take what is read.
    func read(context: ChannelHandlerContext) {
        if partner?.context?.channel.isWritable ?? true {
            context.read()
        } else {
            pendingRead = true
        }
    }

    private func readIfWanted() {
        guard pendingRead, let context else { return }
        pendingRead = false
        context.read()
    }
}
