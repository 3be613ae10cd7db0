import NIOCore
import NIOWebSocket

/// Frames the relay refuses before any other handler sees them.
enum RelayFrameError: Error, Equatable {
    /// RSV1–3 set, but no extension was negotiated (RFC 6455 §5.2: fail the connection, 1002).
    case reservedBitsSet
}

/// Sits right after NIO's WebSocket decoder (before the fragment aggregator, which drops the RSV
/// bits of fragments): a frame with a reserved bit set becomes ``RelayFrameError/reservedBitsSet``,
/// and nothing after it is passed on. Tells ``RelayInFlight`` of every decoded frame.
final class RelayFrameCheck: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame

    private let inFlight: RelayInFlight
    private var failed = false

    init(inFlight: RelayInFlight) {
        self.inFlight = inFlight
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        let frame = Self.unwrapInboundIn(data)
        inFlight.decoded(frame)
        guard !frame.rsv1, !frame.rsv2, !frame.rsv3 else {
            failed = true
            context.fireErrorCaught(RelayFrameError.reservedBitsSet)
            return
        }
        context.fireChannelRead(data)
    }
}
