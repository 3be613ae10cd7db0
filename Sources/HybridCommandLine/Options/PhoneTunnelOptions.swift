import ArgumentParser
import HybridCore

/// `--tunnel-url`, `--domain-id` and `--ca-file`: where the phone side opens its tunnel and which
/// domain its advert names (`hybrid-authenticator serve`, `hybrid-conformance phone`).
package struct PhoneTunnelOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Connect to this relay (ws:// or wss://host[:port]) instead of the domain's tunnel server; "
                + "the advert still names --domain-id.",
            valueName: "url"))
    package var tunnelURL: String?

    @Option(
        help: ArgumentHelp(
            "Tunnel domain to use and advertise: 0 (Google), 1 (Apple, only if the client knows it), "
                + "or a hashed ID 256-65535."))
    package var domainID: UInt16 = 0

    @OptionGroup package var ca: CAFileOption

    package init() {}

    package func validate() throws {
        if let tunnelURL {
            do {
                _ = try TunnelServerOrigin(parsing: tunnelURL)
            } catch {
                throw ValidationError("--tunnel-url must be ws:// or wss:// with a host and optional port (\(error))")
            }
        }
        guard TunnelDomainID(rawValue: domainID) != nil else {
            throw ValidationError("--domain-id \(domainID) is reserved: use 0, 1 or 256-65535")
        }
    }

    /// The relay of `--tunnel-url`, or nil for the domain's own tunnel server.
    package var tunnelOrigin: TunnelServerOrigin? {
        tunnelURL.flatMap { try? TunnelServerOrigin(parsing: $0) }
    }

    /// The file of `--ca-file`.
    package var caFile: String? { ca.path }
}
