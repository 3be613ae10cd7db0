import NIOCore

/// The first handler of a connection when ``RelayConfiguration/proxyProtocol`` is on: buffers
/// the first bytes until ``ProxyProtocolV2Parser`` has the whole PROXY v2 header, hands the
/// client it names to `admit` (which applies the per-address limits and builds the rest of the
/// pipeline), passes on whatever followed the header, and removes itself. A connection that does
/// not start with a valid header is closed without an answer.
final class RelayProxyProtocolHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// Called once with the client (`nil` when the header names none: LOCAL, a health check);
    /// returns `false` if it refused (and closed) the connection.
    private let admit: (ChannelHandlerContext, RelayClientAddress?) -> Bool
    private let rejected: () -> Void
    private var buffered: ByteBuffer?

    init(admit: @escaping (ChannelHandlerContext, RelayClientAddress?) -> Bool, rejected: @escaping () -> Void) {
        self.admit = admit
        self.rejected = rejected
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = Self.unwrapInboundIn(data)
        if var earlier = buffered {
            buffered = nil
            earlier.writeBuffer(&bytes)
            bytes = earlier
        }
        let parsed: (header: ProxyProtocolV2Header, length: Int)?
        do {
            parsed = try ProxyProtocolV2Parser.parse(bytes.readableBytesView)
        } catch {
            rejected()
            context.close(promise: nil)
            return
        }
        guard let parsed else {
            buffered = bytes
            return
        }
        bytes.moveReaderIndex(forwardBy: parsed.length)
        let client = parsed.header.source ?? context.remoteAddress.flatMap(RelayClientAddress.init)
        guard admit(context, client) else { return }
        if bytes.readableBytes > 0 { context.fireChannelRead(Self.wrapInboundOut(bytes)) }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    /// Before the header, a handshake timeout or a shutdown just closes.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is RelayHandshakeTimedOut || event is RelayCloseCommand {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }
}
