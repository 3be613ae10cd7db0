import HybridCore
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket

/// Opens tunnel WebSockets (protocol.md §5): `ws://` plain or `wss://` with TLS (system trust
/// store, plus an optional extra CA file), asking for the `fido.cable` subprotocol and requiring
/// the server to select exactly it.
///
/// Chromium: `WebSocketAdapter`. Both peers use it: the authenticator for `/cable/new` (and reads
/// the routing ID with ``TunnelConnection/routingID()``), the client for `/cable/connect`.
public struct TunnelClient: Sendable {
    /// Limits and trust settings, all defaulted.
    public struct Configuration: Sendable {
        /// Time allowed for the TCP connection.
        public var connectTimeout: Duration = .seconds(10)
        /// Time allowed from TCP connected to the 101 response (TLS included).
        public var handshakeTimeout: Duration = .seconds(10)
        /// Largest inbound or outbound message in bytes (protocol.md §5.4: 1 MiB).
        public var maxMessageSize: Int = TunnelWebSocket.maxMessageSize
        /// PEM file of extra CA certificates trusted for `wss://` in addition to the system store.
        public var additionalCAFile: String?
        /// Local address to bind before connecting; `nil` lets the OS choose. Load generators set
        /// it to spread connections over more source ports than the ephemeral range has.
        public var localAddress: SocketAddress?

        /// The defaults: 1 MiB messages, system trust roots, no local address.
        public init() {}
    }

    private let configuration: Configuration
    private let logger: Logger

    /// A client that opens tunnels with `configuration` and logs to `logger`.
    public init(configuration: Configuration = Configuration(), logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Connects to `url`, runs `body` with the open connection, then closes it.
    ///
    /// - Parameters:
    ///   - url: the tunnel URL (its origin may be a local relay such as `ws://127.0.0.1:8080`).
    ///   - extraHeaders: request headers to add (e.g. `X-caBLE-Client-Payload` for `/cable/contact`).
    ///   - body: uses the open connection; the connection closes when it returns or throws.
    /// - Throws: ``TunnelClientError`` if the connection or upgrade fails, or what `body` throws.
    @discardableResult
    public func withConnection<Result: Sendable>(
        to url: TunnelURL,
        extraHeaders: [(name: String, value: String)] = [],
        _ body: (TunnelConnection) async throws -> Result
    ) async throws -> Result {
        let upgrade = try await connect(to: url, extraHeaders: extraHeaders)
        switch upgrade {
        case .notUpgraded(let status, let channel):
            let code = try? await status.get()
            try? await channel.close()
            guard let code else { throw TunnelClientError.connectionClosed }
            throw TunnelClientError.httpStatus(code)
        case .upgraded(let asyncChannel, let headers, let closeFuture):
            logger.debug("tunnel connected", metadata: ["tunnel.endpoint": "\(Self.endpointName(url.path))"])
            return try await asyncChannel.executeThenClose { inbound, outbound in
                let connection = TunnelConnection(
                    responseHeaders: headers,
                    inbound: inbound,
                    outbound: outbound,
                    channel: asyncChannel.channel,
                    closeFuture: closeFuture,
                    maxMessageSize: configuration.maxMessageSize
                )
                return try await body(connection)
            }
        }
    }

    enum UpgradeResult: Sendable {
        case upgraded(NIOAsyncChannel<ByteBuffer, WebSocketFrame>, HTTPHeaders, EventLoopFuture<TunnelCloseInfo?>)
        /// The status arrives once the upgrade handler passes the buffered response head on.
        case notUpgraded(status: EventLoopFuture<Int>, any Channel)
    }

    private func connect(
        to url: TunnelURL,
        extraHeaders: [(name: String, value: String)]
    ) async throws(TunnelClientError) -> UpgradeResult {
        let origin = url.origin
        let tlsContext = try makeTLSContext(for: origin)
        let serverHostname = Self.isIPAddress(origin.host) ? nil : origin.host
        let maxMessageSize = configuration.maxMessageSize
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: origin.authority)
        headers.add(name: "Sec-WebSocket-Protocol", value: TunnelWebSocket.subprotocol)
        for (name, value) in extraHeaders { headers.add(name: name, value: value) }
        let requestHead = HTTPRequestHead(
            version: .http1_1, method: .GET, uri: url.path.canonicalPath, headers: headers)

        let upgradeFuture: EventLoopFuture<UpgradeResult>
        let channel: any Channel
        do {
            // ClientBootstrap sets TCP_NODELAY itself. (`.socketOption(.tcp_nodelay)` would be
            // SO_DEBUG, level SOL_SOCKET, which fails without CAP_NET_ADMIN: no connection at all.)
            var bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(TimeAmount(configuration.connectTimeout))
            if let localAddress = configuration.localAddress {
                bootstrap = bootstrap.channelOption(.socketOption(.so_reuseaddr), value: 1).bind(to: localAddress)
            }
            (channel, upgradeFuture) =
                try await bootstrap
                .connect(host: origin.host, port: origin.effectivePort) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        if let tlsContext {
                            let tls = try NIOSSLClientHandler(context: tlsContext, serverHostname: serverHostname)
                            try channel.pipeline.syncOperations.addHandler(tls)
                        }
                        let future = try Self.configureUpgrade(
                            channel: channel,
                            requestHead: requestHead,
                            maxMessageSize: maxMessageSize
                        )
                        return (channel, future)
                    }
                }
        } catch ChannelError.connectTimeout {
            throw .connectTimeout
        } catch {
            throw .unreachable("\(origin.authority): \(error)")
        }

        let timeout = channel.eventLoop.scheduleTask(in: TimeAmount(configuration.handshakeTimeout)) {
            channel.pipeline.fireErrorCaught(TunnelClientError.handshakeTimeout)
            channel.close(promise: nil)
        }
        defer { timeout.cancel() }
        do {
            return try await upgradeFuture.get()
        } catch {
            channel.close(promise: nil)
            throw Self.classify(error)
        }
    }

    /// Installs the HTTP client codec and the WebSocket upgrader on a fresh channel.
    private static func configureUpgrade(
        channel: any Channel,
        requestHead: HTTPRequestHead,
        maxMessageSize: Int
    ) throws -> EventLoopFuture<UpgradeResult> {
        let upgrader = NIOTypedWebSocketClientUpgrader<UpgradeResult>(
            maxFrameSize: maxMessageSize,
            // TunnelClientFrameHandler reports the error before closing (NIO's handler closes first).
            enableAutomaticErrorHandling: false,
            upgradePipelineHandler: { channel, response in
                channel.eventLoop.makeCompletedFuture {
                    let selected = response.headers["Sec-WebSocket-Protocol"]
                    guard selected == [TunnelWebSocket.subprotocol] else { throw TunnelClientError.subprotocolMissing }
                    let closePromise = channel.eventLoop.makePromise(of: TunnelCloseInfo?.self)
                    let sync = channel.pipeline.syncOperations
                    try sync.addHandler(
                        NIOWebSocketFrameAggregator(
                            minNonFinalFragmentSize: 0,
                            maxAccumulatedFrameCount: 1024,
                            maxAccumulatedFrameSize: maxMessageSize
                        )
                    )
                    try sync.addHandler(TunnelClientFrameHandler(closePromise: closePromise))
                    let asyncChannel = try NIOAsyncChannel<ByteBuffer, WebSocketFrame>(
                        wrappingChannelSynchronously: channel
                    )
                    return .upgraded(asyncChannel, response.headers, closePromise.futureResult)
                }
            }
        )
        let configuration = NIOTypedHTTPClientUpgradeConfiguration<UpgradeResult>(
            upgradeRequestHead: requestHead,
            upgraders: [upgrader],
            notUpgradingCompletionHandler: { channel in
                // The buffered response head reaches handlers after the upgrade handler only once
                // this future completes, so a handler added here catches its status afterwards.
                channel.eventLoop.makeCompletedFuture {
                    let catcher = HTTPStatusCatcher(promise: channel.eventLoop.makePromise())
                    try channel.pipeline.syncOperations.addHandler(catcher)
                    return .notUpgraded(status: catcher.promise.futureResult, channel)
                }
            }
        )
        var pipelineConfiguration = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: configuration)
        // Frames may arrive in the same read as the 101 (a relay flushing queued messages).
        pipelineConfiguration.leftOverBytesStrategy = .forwardBytes
        return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
            configuration: pipelineConfiguration
        )
    }

    private func makeTLSContext(for origin: TunnelServerOrigin) throws(TunnelClientError) -> NIOSSLContext? {
        guard origin.scheme == .wss else { return nil }
        var tls = TLSConfiguration.makeClientConfiguration()
        if let file = configuration.additionalCAFile { tls.additionalTrustRoots = [.file(file)] }
        do {
            return try NIOSSLContext(configuration: tls)
        } catch {
            throw .tlsFailure("cannot load trust roots: \(error)")
        }
    }

    private static func classify(_ error: any Error) -> TunnelClientError {
        switch error {
        case let error as TunnelClientError: error
        case let error as NIOSSLError: .tlsFailure("\(error)")
        case let error as BoringSSLError: .tlsFailure("\(error)")
        case let error as NIOHTTPClientUpgradeError where error == .upgraderDeniedUpgrade:
            .upgradeRejected("bad Sec-WebSocket-Accept")
        case let error as NIOHTTPClientUpgradeError: .upgradeRejected("\(error)")
        case is IOError: .connectionClosed
        case let error as ChannelError where error == .eof || error == .ioOnClosedChannel: .connectionClosed
        default: .protocolViolation(.rejected(UnexpectedError(error)))
        }
    }

    private static func isIPAddress(_ host: String) -> Bool {
        (try? SocketAddress(ipAddress: host, port: 0)) != nil
    }

    private static func endpointName(_ path: TunnelPath) -> String {
        switch path {
        case .new: "new"
        case .connect: "connect"
        case .contact: "contact"
        }
    }
}

/// Completes `promise` with the status of the first HTTP response head it sees (or fails it if
/// the connection closes first). Used when the server declines the WebSocket upgrade.
private final class HTTPStatusCatcher: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    let promise: EventLoopPromise<Int>

    init(promise: EventLoopPromise<Int>) { self.promise = promise }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = Self.unwrapInboundIn(data) { promise.succeed(Int(head.status.code)) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(TunnelClientError.connectionClosed)
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        promise.fail(TunnelClientError.connectionClosed)
    }
}
