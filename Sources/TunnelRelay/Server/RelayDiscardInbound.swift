import NIOCore

/// Put first in the pipeline of a connection the relay is closing for flooding: everything read
/// from it afterwards is dropped before TLS or the WebSocket decoder spend work on it. (Reads
/// already stop; this covers the rest of the read cycle in progress.)
final class RelayDiscardInbound: ChannelInboundHandler {
    typealias InboundIn = NIOAny

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}
