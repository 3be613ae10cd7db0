import NIOCore
import NIOWebSocket

/// The way from one side of a paired tunnel to its peer's socket, for relayed messages, each
/// written already encoded (``RelayOutboundFrame``).
///
/// When both connections run on the same event loop (always with `--event-loops 1`), messages are
/// written from the context of the peer's ``RelayTunnelHandler``, straight to the peer's socket
/// (through TLS if there is one). Across loops they go through the peer's channel, which hops to
/// its loop. Either way they are only flushed by ``flush()``, once per read cycle, so several
/// messages read together leave in one write.
final class RelayPeerLink {
    let channel: any Channel
    /// The peer's tunnel handler context, when the peer shares this loop.
    private var peerContext: ChannelHandlerContext?
    private var unflushed = false

    /// Call on the event loop of the side that forwards to `channel`.
    init(channel: any Channel, from eventLoop: any EventLoop) {
        self.channel = channel
        if channel.eventLoop === eventLoop {
            peerContext = try? channel.pipeline.syncOperations.context(handlerType: RelayTunnelHandler.self)
        }
    }

    /// Queues `payload` (unmasked with `maskKey`, if given) for the peer as one binary message.
    func write(payload: ByteBuffer, maskKey: WebSocketMaskingKey?, promise: EventLoopPromise<Void>? = nil) {
        write(
            frame: RelayOutboundFrame.encode(.binary, payload: payload, maskKey: maskKey, allocator: channel.allocator),
            promise: promise)
    }

    /// Queues an encoded frame for the peer.
    func write(frame: ByteBuffer, promise: EventLoopPromise<Void>? = nil) {
        unflushed = true
        if let peerContext {
            peerContext.write(NIOAny(frame), promise: promise)
        } else {
            channel.write(frame, promise: promise)
        }
    }

    /// Flushes what ``write(payload:maskKey:promise:)`` queued since the last flush.
    func flush() {
        guard unflushed else { return }
        unflushed = false
        if let peerContext {
            peerContext.flush()
        } else {
            channel.flush()
        }
    }

    /// Drops the reference into the peer's pipeline (when this side's handler goes away).
    func detach() {
        peerContext = nil
    }
}
