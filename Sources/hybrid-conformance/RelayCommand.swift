import ArgumentParser
import HybridCommandLine
import HybridConformance
import HybridConformanceLive

/// `hybrid-conformance relay URL`: checks a running relay against protocol.md §5.
struct RelayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relay",
        abstract: "Check a running tunnel relay (protocol.md §5) over real sockets.",
        discussion: """
            Opens tunnels on the relay at URL (ws://, wss://, http:// or https://, origin only) and \
            checks the upgrade, the fido.cable subprotocol, the routing-ID header, path forms, \
            refusals (400/404/405/409), forwarding in both directions up to 1 MiB, and close \
            propagation; with wss://, the TLS version. --slow adds the pending-tunnel TTL and the \
            idle timeout, which take minutes. Exits non-zero when a check fails.
            """
    )

    @Argument(help: "The relay's origin, e.g. ws://127.0.0.1:8080 or wss://relay.example.")
    var url: String

    @OptionGroup var ca: CAFileOption

    @Flag(help: "Also wait out the pending TTL and idle timeouts (minutes).")
    var slow = false

    @Option(help: "Seconds to wait for any one answer from the relay.")
    var stepTimeout: Int = 10

    @OptionGroup var report: ReportOptions

    func run() async throws {
        let target: RelayTarget
        do {
            target = try RelayTarget(parsing: url)
        } catch {
            throw ValidationError("\(error)")
        }
        var options = RelayConformanceRun.Options()
        options.caFile = ca.path
        options.slow = slow
        options.stepTimeout = .seconds(max(1, stepTimeout))
        try report.emit(await RelayConformanceRun(target: target, options: options).run())
    }
}
