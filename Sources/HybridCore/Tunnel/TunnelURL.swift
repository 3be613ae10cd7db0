/// A full tunnel-service WebSocket URL: where the server is plus which endpoint (protocol.md §5.1).
///
/// `description` is the URL text, e.g. `wss://cable.ua5v.com/cable/new/<TUNNEL ID>`.
public struct TunnelURL: Hashable, Sendable, CustomStringConvertible {
    /// Scheme, host and port of the tunnel server.
    public var origin: TunnelServerOrigin
    /// The endpoint and its arguments.
    package var path: TunnelPath

    /// Combines an origin (a domain's host, or a local relay) with an endpoint.
    package init(origin: TunnelServerOrigin, path: TunnelPath) {
        self.origin = origin
        self.path = path
    }

    /// `wss://<domain host>/cable/new/<TUNNEL ID>`.
    package static func new(domain: TunnelDomainID, tunnelID: TunnelID) -> TunnelURL {
        TunnelURL(origin: TunnelServerOrigin(domain: domain), path: .new(tunnelID))
    }

    /// `wss://<domain host>/cable/connect/<ROUTING ID>/<TUNNEL ID>`.
    package static func connect(domain: TunnelDomainID, routingID: RoutingID, tunnelID: TunnelID) -> TunnelURL {
        TunnelURL(origin: TunnelServerOrigin(domain: domain), path: .connect(routingID, tunnelID))
    }

    /// `wss://<domain host>/cable/contact/<base64url(contact ID)>`.
    package static func contact(domain: TunnelDomainID, contactID: [UInt8]) -> TunnelURL {
        TunnelURL(origin: TunnelServerOrigin(domain: domain), path: .contact(contactID))
    }

    /// The URL as text, e.g. `wss://cable.ua5v.com/cable/connect/…`.
    public var description: String { origin.description + path.canonicalPath }
}
