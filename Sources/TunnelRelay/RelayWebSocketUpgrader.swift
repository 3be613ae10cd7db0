import HybridCore
import NIOCore
import NIOHTTP1
import NIOWebSocket

/// The server side of the WebSocket opening handshake (RFC 6455 §4.2.2) for relay connections.
///
/// Unlike NIO's `NIOWebSocketServerUpgrader` it adds no frame codec: after the 101 response the
/// pipeline is just `[TLS] → RelayTunnelHandler`, which reads frames out of the raw bytes itself.
/// The request has already been checked by ``RelayRequestGate`` (one key, version 13); this only
/// refuses what it cannot answer.
struct RelayWebSocketUpgrader: HTTPServerProtocolUpgrader, Sendable {
    let supportedProtocol = "websocket"
    /// None that the `Connection` header must name; the key and version are checked below.
    let requiredUpgradeHeaders: [String] = []

    /// The extra response headers for an accepted request; `nil` refuses the upgrade.
    let responseHeaders: @Sendable (any Channel) -> HTTPHeaders?
    /// Puts the tunnel handler in place once the 101 response is on its way.
    let installTunnel: @Sendable (any Channel) throws -> Void

    func buildUpgradeResponse(
        channel: any Channel, upgradeRequest: HTTPRequestHead, initialResponseHeaders: HTTPHeaders
    ) -> EventLoopFuture<HTTPHeaders> {
        let keys = upgradeRequest.headers["Sec-WebSocket-Key"]
        guard keys.count == 1, upgradeRequest.headers["Sec-WebSocket-Version"] == ["13"] else {
            return channel.eventLoop.makeFailedFuture(NIOWebSocketUpgradeError.invalidUpgradeHeader)
        }
        guard var headers = responseHeaders(channel) else {
            return channel.eventLoop.makeFailedFuture(NIOWebSocketUpgradeError.unsupportedWebSocketTarget)
        }
        headers.replaceOrAdd(name: "Upgrade", value: "websocket")
        headers.add(name: "Sec-WebSocket-Accept", value: TunnelWebSocket.acceptValue(forKey: keys[0]))
        headers.replaceOrAdd(name: "Connection", value: "upgrade")
        return channel.eventLoop.makeSucceededFuture(headers)
    }

    func upgrade(context: ChannelHandlerContext, upgradeRequest: HTTPRequestHead) -> EventLoopFuture<Void> {
        let channel = context.channel
        return context.eventLoop.makeCompletedFuture { try installTunnel(channel) }
    }

}
