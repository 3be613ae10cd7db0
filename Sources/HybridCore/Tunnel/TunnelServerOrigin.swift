/// Scheme, host and optional port of a tunnel server: `wss://cable.ua5v.com` or, for a self-run
/// relay, e.g. `ws://127.0.0.1:8080`.
public struct TunnelServerOrigin: Hashable, Sendable, CustomStringConvertible {
    /// `ws` (plain, behind a TLS-terminating proxy or on loopback) or `wss` (TLS).
    public enum Scheme: String, Hashable, Sendable {
        case ws, wss

        /// 80 for `ws`, 443 for `wss`.
        public var defaultPort: Int { self == .ws ? 80 : 443 }
    }

    /// The scheme.
    public var scheme: Scheme
    /// Host name or IP address; an IPv6 address is stored without brackets.
    public var host: String
    /// Explicit port, or `nil` for the scheme's default.
    public var port: Int?

    /// Wraps the parts as given.
    public init(scheme: Scheme, host: String, port: Int? = nil) {
        self.scheme = scheme
        self.host = host
        self.port = port
    }

    /// `wss://<host of domain>`.
    public init(domain: TunnelDomainID) {
        self.init(scheme: .wss, host: domain.host)
    }

    /// Parses `ws://host[:port]` or `wss://host[:port]`, with an optional trailing `/` and IPv6
    /// hosts in brackets. Meant for configuration (a `--relay-url` flag), not peer input.
    public init(parsing text: String) throws(TunnelServerOriginError) {
        let scheme: Scheme
        var rest: Substring
        if text.hasPrefix("wss://") {
            scheme = .wss
            rest = text.dropFirst(6)
        } else if text.hasPrefix("ws://") {
            scheme = .ws
            rest = text.dropFirst(5)
        } else {
            throw .unsupportedScheme
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.contains("/"), !rest.contains("?"), !rest.contains("#"), !rest.contains("@") else {
            throw .unexpectedPath
        }
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw .invalidHost }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .invalidHost }
                portText = after.dropFirst()
            }
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw .invalidHost
            }
        } else {
            let parts = rest.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            host = parts[0]
            if parts.count == 2 { portText = parts[1] }
            guard !host.isEmpty,
                host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") })
            else { throw .invalidHost }
        }
        var port: Int?
        if let portText {
            guard portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
                let value = Int(portText), (1...65_535).contains(value)
            else { throw .invalidPort }
            port = value
        }
        self.init(scheme: scheme, host: String(host), port: port)
    }

    /// The port to connect to: the explicit one or the scheme's default.
    package var effectivePort: Int { port ?? scheme.defaultPort }

    /// `host[:port]` for the HTTP `Host` header (IPv6 in brackets).
    package var authority: String {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return port.map { "\(bracketed):\($0)" } ?? bracketed
    }

    /// `scheme://authority`.
    public var description: String { "\(scheme.rawValue)://\(authority)" }
}

/// Why ``TunnelServerOrigin/init(parsing:)`` rejected a string.
public enum TunnelServerOriginError: Error, Equatable, Sendable {
    /// The string does not start with `ws://` or `wss://`.
    case unsupportedScheme
    /// The host is empty or has characters a host name or IP address cannot have.
    case invalidHost
    /// The port is not a number from 1 to 65535.
    case invalidPort
    /// The string has a path, query, fragment or user info after the authority.
    case unexpectedPath
}
