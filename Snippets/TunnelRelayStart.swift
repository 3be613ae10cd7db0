// Starts a tunnel relay on 127.0.0.1 and serves until the task is cancelled.
import Logging
import TunnelRelay

var configuration = RelayConfiguration()
configuration.host = "127.0.0.1"
configuration.port = 0  // the system picks a free port
let relay = try await buildRelay(configuration: configuration, logger: Logger(label: "relay"))
print("relay listening on ws://127.0.0.1:\(relay.port)")
// A client reaches it with `HybridClientOptions(tunnelServers:)`, a phone with
// `AuthenticatorRunner.Options.tunnelOrigin`.
try await relay.run()
