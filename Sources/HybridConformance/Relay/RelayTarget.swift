import HybridCore

/// The relay under test: `ws://`, `wss://`, `http://` or `https://` host and port, no path.
/// `http` means `ws` and `https` means `wss`.
package struct RelayTarget: Sendable, Equatable, CustomStringConvertible {
    package let origin: TunnelServerOrigin

    package init(origin: TunnelServerOrigin) { self.origin = origin }

    /// Parses the command-line URL.
    package init(parsing text: String) throws(RelayTargetError) {
        var normalized = text
        if text.lowercased().hasPrefix("https://") {
            normalized = "wss://" + text.dropFirst(8)
        } else if text.lowercased().hasPrefix("http://") {
            normalized = "ws://" + text.dropFirst(7)
        }
        do {
            origin = try TunnelServerOrigin(parsing: normalized)
        } catch {
            throw RelayTargetError(text: text, reason: error)
        }
    }

    /// Whether the relay is reached over TLS.
    package var usesTLS: Bool { origin.scheme == .wss }

    package var description: String { origin.description }
}

/// The relay URL could not be used.
package struct RelayTargetError: Error, Equatable, Sendable, CustomStringConvertible {
    package let text: String
    package let reason: TunnelServerOriginError

    package var description: String {
        let why: String
        switch reason {
        case .unsupportedScheme: why = "use ws://, wss://, http:// or https://"
        case .invalidHost: why = "the host is not a host name or IP address"
        case .invalidPort: why = "the port is not 1-65535"
        case .unexpectedPath: why = "give the relay's origin only, without a path, query or user"
        }
        return "\(text): \(why)"
    }
}
