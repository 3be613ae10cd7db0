import HybridCore
import NIOCore
import NIOHTTP1

/// Why the relay refused a request: the HTTP status and a short label used for metrics and logs.
public enum RelayRejection: String, Sendable, CaseIterable {
    /// Request line or headers unusable (bad path, not a WebSocket upgrade, missing subprotocol).
    case badRequest = "bad_request"
    /// The path is not a tunnel path.
    case badPath = "bad_path"
    /// The `fido.cable` subprotocol was not offered.
    case missingSubprotocol = "missing_subprotocol"
    /// Not a GET.
    case methodNotAllowed = "method_not_allowed"
    /// A pending tunnel with this tunnel ID already exists.
    case duplicateTunnel = "duplicate_tunnel"
    /// No pending tunnel with this routing ID and tunnel ID (never existed, expired or taken).
    case unknownTunnel = "unknown_tunnel"
    /// `/cable/contact` (linked devices) is not supported by this relay.
    case contactUnsupported = "contact_unsupported"
    /// Too many pending tunnels.
    case pendingLimit = "pending_limit"
    /// Too many open connections.
    case connectionLimit = "connection_limit"
    /// Too many open connections from this IP address.
    case addressConnectionLimit = "address_connection_limit"
    /// Too many pending tunnels opened from this IP address.
    case addressPendingLimit = "address_pending_limit"
    /// This IP address opens connections too fast.
    case rateLimited = "rate_limited"
    /// The relay is shutting down.
    case shuttingDown = "shutting_down"
    /// The request handshake took too long.
    case handshakeTimeout = "handshake_timeout"
    /// ``RelayConfiguration/proxyProtocol`` is on and the connection did not start with a valid
    /// PROXY v2 header (closed without an answer).
    case missingProxyHeader = "missing_proxy_header"
    /// ``RelayConfiguration/proxyProtocol`` is on and the connection came from a peer that is not
    /// a trusted proxy (closed at accept, nothing read, no answer).
    case untrustedProxy = "untrusted_proxy"
    /// Nothing here (a non-tunnel path such as `/favicon.ico`).
    case notFound = "not_found"

    /// The HTTP status sent for this rejection.
    public var status: HTTPResponseStatus {
        switch self {
        case .badRequest, .badPath, .missingSubprotocol, .missingProxyHeader: .badRequest
        case .untrustedProxy: .forbidden
        case .methodNotAllowed: .methodNotAllowed
        case .duplicateTunnel: .conflict
        case .unknownTunnel, .notFound: .notFound
        case .contactUnsupported: .notImplemented
        case .pendingLimit, .connectionLimit, .shuttingDown: .serviceUnavailable
        case .rateLimited, .addressConnectionLimit, .addressPendingLimit: .tooManyRequests
        case .handshakeTimeout: .requestTimeout
        }
    }

    /// The plain-text body sent with the status.
    var message: String {
        switch self {
        case .badRequest: "not a valid WebSocket upgrade request"
        case .badPath: "malformed tunnel path"
        case .missingSubprotocol: "the fido.cable WebSocket subprotocol is required"
        case .methodNotAllowed: "only GET is allowed"
        case .duplicateTunnel: "a pending tunnel with this ID already exists"
        case .unknownTunnel: "no pending tunnel with this routing ID and tunnel ID"
        case .contactUnsupported: "/cable/contact (linked devices) is not supported by this relay"
        case .pendingLimit: "too many pending tunnels"
        case .connectionLimit: "too many connections"
        case .addressConnectionLimit: "too many connections from this address"
        case .addressPendingLimit: "too many pending tunnels from this address"
        case .rateLimited: "too many connections from this address"
        case .shuttingDown: "relay is shutting down"
        case .handshakeTimeout: "request took too long"
        case .missingProxyHeader: "expected a PROXY protocol v2 header"
        case .untrustedProxy: "not a trusted proxy"
        case .notFound: "not found"
        }
    }

    /// A complete `Connection: close` response, for connections refused at accept before any
    /// request was read.
    var earlyResponse: ByteBuffer {
        RelayHTTPResponse.closing(status, body: Array((message + "\n").utf8))
    }
}

/// What to do with one HTTP request head, before any registry work.
enum RelayRoute: Equatable {
    /// Upgrade and register a pending tunnel.
    case new(TunnelID)
    /// Upgrade and join the pending tunnel.
    case connect(RoutingID, TunnelID)
    /// Answer `/healthz`: 200 `ok` while serving (the status only: no counts on the public port).
    case health
    /// Answer `/healthz` with 503: shutting down gracefully, send no new tunnels here.
    case draining
    /// Answer `/metrics`.
    case metrics
    /// Answer with an error status.
    case reject(RelayRejection)
}

/// Classifies request heads. Pure: the registry is consulted afterwards, only for upgrades.
enum RelayRequestRouter {
    /// Conditions of the connection the request arrived on. (Connection limits and the rate
    /// limit are decided at accept, before any request: ``RelayChannelInitializer``.)
    struct ConnectionConditions {
        var shuttingDown = false
        /// Graceful shutdown has begun (``RelayHealth``): `/healthz` fails, the rest still works.
        var draining = false
        /// The connection came to the metrics listener (``RelayConfiguration/metricsPort``),
        /// which serves `/metrics` and nothing else. The tunnel listener never serves `/metrics`.
        var metricsListener = false
    }

    static func route(_ head: HTTPRequestHead, conditions: ConnectionConditions) -> RelayRoute {
        // A query string is ignored: only the path before "?" is parsed.
        let path = head.uri.utf8.firstIndex(of: UInt8(ascii: "?")).map { head.uri[..<$0] } ?? head.uri[...]
        if conditions.metricsListener {
            guard path == "/metrics" else { return .reject(.notFound) }
            return head.method == .GET ? .metrics : .reject(.methodNotAllowed)
        }
        if path == "/healthz" {
            guard head.method == .GET else { return .reject(.methodNotAllowed) }
            return conditions.draining || conditions.shuttingDown ? .draining : .health
        }
        guard path.hasPrefix("/cable/") else { return .reject(.notFound) }
        guard head.method == .GET else { return .reject(.methodNotAllowed) }
        let tunnelPath: TunnelPath
        do {
            tunnelPath = try TunnelPath(parsing: path)
        } catch {
            return .reject(.badPath)
        }
        if case .contact = tunnelPath { return .reject(.contactUnsupported) }
        if conditions.shuttingDown { return .reject(.shuttingDown) }
        guard isWebSocketUpgrade(head), !declaresBody(head) else { return .reject(.badRequest) }
        guard offersSubprotocol(head) else { return .reject(.missingSubprotocol) }
        switch tunnelPath {
        case .new(let tunnelID): return .new(tunnelID)
        case .connect(let routingID, let tunnelID): return .connect(routingID, tunnelID)
        case .contact: return .reject(.contactUnsupported)
        }
    }

    /// RFC 6455 §4.2.1: HTTP/1.1, `Upgrade: websocket` (the one element), `Connection` naming
    /// `upgrade`, one `Sec-WebSocket-Version: 13` and one `Sec-WebSocket-Key`.
    static func isWebSocketUpgrade(_ head: HTTPRequestHead) -> Bool {
        guard head.version == .http1_1 else { return false }
        var upgradeElements = 0
        var upgradeIsWebSocket = false
        RelayHeaderList.forEachElement(of: "upgrade", in: head.headers) {
            upgradeElements += 1
            upgradeIsWebSocket = RelayHeaderList.equalsIgnoringASCIICase($0, "websocket".utf8)
        }
        var connectionUpgrades = false
        RelayHeaderList.forEachElement(of: "connection", in: head.headers) {
            connectionUpgrades = connectionUpgrades || RelayHeaderList.equalsIgnoringASCIICase($0, "upgrade".utf8)
        }
        var versions = 0
        var keys = 0
        var isVersion13 = false
        for (name, value) in head.headers {
            if RelayHeaderList.equalsIgnoringASCIICase(name.utf8, "sec-websocket-version".utf8) {
                versions += 1
                isVersion13 = value == "13"
            } else if RelayHeaderList.equalsIgnoringASCIICase(name.utf8, "sec-websocket-key".utf8) {
                keys += 1
            }
        }
        return upgradeElements == 1 && upgradeIsWebSocket && connectionUpgrades && versions == 1 && isVersion13
            && keys == 1
    }

    /// Whether the request says a body follows its head (`Transfer-Encoding`, or a `Content-Length`
    /// other than 0). An upgrade has none (RFC 6455 §4.1): after the 101, bytes that followed the
    /// head are read as WebSocket frames, so a declared body is refused rather than misread.
    static func declaresBody(_ head: HTTPRequestHead) -> Bool {
        var declares = false
        RelayHeaderList.forEachElement(of: "transfer-encoding", in: head.headers) { _ in declares = true }
        RelayHeaderList.forEachElement(of: "content-length", in: head.headers) {
            declares = declares || !$0.elementsEqual("0".utf8)
        }
        return declares
    }

    /// Whether `fido.cable` is among the offered subprotocols (a comma-separated token list).
    static func offersSubprotocol(_ head: HTTPRequestHead) -> Bool {
        var offered = false
        RelayHeaderList.forEachElement(of: "sec-websocket-protocol", in: head.headers) {
            offered = offered || $0.elementsEqual(TunnelWebSocket.subprotocol.utf8)
        }
        return offered
    }
}
