/// A tuple origin (scheme, host, port) as a browser would report it for the calling page.
///
/// Accepts `https://host[:port]` and, for loopback hosts only (`localhost`, `*.localhost`,
/// `127.0.0.0/8`, `[::1]`), `http://…`; a single trailing `/` is tolerated. Paths, queries, fragments,
/// user info and non-ASCII hosts are rejected. The host is lower-cased and a default port dropped,
/// so ``serialization`` is the ASCII serialization browsers put in clientDataJSON.
public struct WebOrigin: Sendable, Hashable, CustomStringConvertible {
    /// The origin's scheme.
    package enum Scheme: String, Sendable, Hashable {
        case https
        case http

        var defaultPort: UInt16 { self == .https ? 443 : 80 }
    }

    /// `https`, or `http` for localhost.
    package let scheme: Scheme
    /// The host.
    package let host: WebHost
    /// The port if it is not the scheme's default.
    package let port: UInt16?

    /// Parses and checks an origin string.
    public init(_ text: String) throws(OriginError) {
        let schemeEnd = text.range(of: "://")
        guard let schemeEnd, let scheme = Scheme(rawValue: text[..<schemeEnd.lowerBound].lowercased()) else {
            if text.range(of: "://") != nil { throw .insecureOrigin(text) }
            throw .malformedOrigin(text)
        }
        var authority = text[schemeEnd.upperBound...]
        if authority.hasSuffix("/") { authority.removeLast() }
        guard !authority.isEmpty, !authority.contains(where: { "/?#@\\ ".contains($0) }) else {
            throw .malformedOrigin(text)
        }
        // Split off ":port", minding IPv6 brackets.
        var hostText = authority
        var port: UInt16?
        if let colon = authority.lastIndex(of: ":"), !authority[colon...].contains("]") {
            hostText = authority[..<colon]
            let portText = authority[authority.index(after: colon)...]
            guard !portText.isEmpty, portText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let value = UInt16(portText)
            else { throw .malformedOrigin(text) }
            port = value == scheme.defaultPort ? nil : value
        }
        guard let host = WebHost(parsing: hostText) else { throw .unsupportedHost(String(hostText)) }
        if scheme == .http, !host.isLoopback { throw .insecureOrigin(text) }
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    /// `scheme://host[:port]`, as in clientDataJSON's `origin`.
    public var serialization: String {
        var text = "\(scheme.rawValue)://\(host.serialization)"
        if let port { text += ":\(port)" }
        return text
    }

    /// One line for a user.
    public var description: String { serialization }
}
