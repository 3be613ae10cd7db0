import ArgumentParser
import HybridCore

/// `--tunnel-server ID=URL` (repeatable) and `--ca-file`: your own relay for a tunnel domain, and
/// the extra CA certificates for `wss://` tunnel servers (`hybrid-client`, `hybrid-security-key`).
package struct TunnelServerOptions: ParsableArguments {
    @Option(
        name: .customLong("tunnel-server"),
        help: ArgumentHelp(
            "Use your own relay for a tunnel domain: connect to URL (e.g. wss://relay.example.com) when the phone "
                + "names tunnel domain ID (0 Google, 1 Apple, 256-65535 hashed). Repeatable.",
            valueName: "ID=URL"))
    package var tunnelServers: [String] = []

    @OptionGroup package var ca: CAFileOption

    /// The file of `--ca-file`.
    package var caFile: String? { ca.path }

    package init() {}

    package func validate() throws {
        _ = try tunnelServerMap()
    }

    /// The `--tunnel-server ID=URL` mappings.
    package func tunnelServerMap() throws -> [TunnelDomainID: TunnelServerOrigin] {
        var map: [TunnelDomainID: TunnelServerOrigin] = [:]
        for text in tunnelServers {
            guard let (domain, origin) = TunnelOverrideArgument.parse(text) else {
                throw ValidationError(
                    "--tunnel-server \(text): expected ID=URL with ID 0, 1 or 256-65535 and URL ws://host[:port] or wss://host[:port]"
                )
            }
            map[domain] = origin
        }
        return map
    }
}
