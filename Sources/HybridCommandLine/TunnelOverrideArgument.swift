import HybridCore

/// The `--tunnel-server ID=URL` command-line form (your own relay for a domain): tunnel domain ID 0, 1 or
/// 256–65535, and a `ws://` or `wss://` origin.
package enum TunnelOverrideArgument {
    /// The parsed pair, or nil when `text` is not `ID=URL` with a valid ID and origin.
    package static func parse(_ text: String) -> (TunnelDomainID, TunnelServerOrigin)? {
        let parts = text.split(separator: "=", maxSplits: 1)
        guard parts.count == 2, let raw = UInt16(parts[0]), let domain = TunnelDomainID(rawValue: raw),
            let origin = try? TunnelServerOrigin(parsing: String(parts[1]))
        else { return nil }
        return (domain, origin)
    }
}
