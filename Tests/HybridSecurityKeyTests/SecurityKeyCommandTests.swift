import ArgumentParser
import Testing

@testable import hybrid_security_key

/// `hybrid-security-key`'s relay choice: `--tunnel-server ID=URL` as `hybrid-client` takes it.
@Suite struct SecurityKeyCommandTests {
    @Test func tunnelServerIsAccepted() throws {
        let command = try HybridSecurityKeyCommand.parse([
            "--tunnel-server", "0=wss://relay.example.com", "--tunnel-server", "256=ws://127.0.0.1:8080",
        ])
        #expect(command.tunnel.tunnelServers == ["0=wss://relay.example.com", "256=ws://127.0.0.1:8080"])
    }

    @Test(arguments: ["2=ws://127.0.0.1:8080", "0=http://127.0.0.1:8080", "ws://127.0.0.1:8080"])
    func tunnelServerRejectsBadPairs(_ text: String) {
        #expect(throws: (any Error).self) { try HybridSecurityKeyCommand.parse(["--tunnel-server", text]) }
    }

    /// The option groups hybrid-client uses too (HybridCommandLine): the same defaults and the
    /// same range checks, worded the same.
    @Test func timesAndBluetoothAreCheckedAsHybridClientChecksThem() throws {
        let command = try HybridSecurityKeyCommand.parse([])
        #expect(command.times.timeoutDuration() == .seconds(120) && command.times.lingerDuration == .seconds(180))
        #expect(command.window && !command.qr.printQRURL && command.qr.qrFile == nil)
        for (arguments, message) in [
            (["--timeout", "0"], "--timeout must be between 0 and 3600 seconds"),
            (["--linger", "3601"], "--linger must be between 0 and 3600 seconds"),
            (
                ["--tunnel-server", "2=ws://127.0.0.1:8080"],
                "--tunnel-server 2=ws://127.0.0.1:8080: expected ID=URL with ID 0, 1 or 256-65535 and URL ws://host[:port] or wss://host[:port]"
            ),
        ] {
            expectRefused(arguments, saying: message)
        }
    }

    /// The logging options every ceremony program shares (HybridCommandLine's LogOptions): the key
    /// takes --log-level as hybrid-authenticator does, and --verbose as hybrid-client does.
    @Test func logLevelAndVerboseAreTheSharedLogOptions() throws {
        #expect(try HybridSecurityKeyCommand.parse([]).log.level == .warning)
        #expect(try HybridSecurityKeyCommand.parse(["--verbose"]).log.level == .debug)
        #expect(try HybridSecurityKeyCommand.parse(["--log-level", "info"]).log.level == .info)
        #expect(try HybridSecurityKeyCommand.parse(["--verbose", "--log-level", "debug"]).log.level == .debug)
        for (arguments, message) in [
            (
                ["--log-level", "loud"],
                "unknown --log-level loud: use trace, debug, info, notice, warning, error or critical"
            ),
            (
                ["--verbose", "--log-level", "error"],
                "--verbose means --log-level debug: give one of them, not --log-level error too"
            ),
        ] {
            expectRefused(arguments, saying: message)
        }
    }

    /// The command line is refused with exactly `message`, as the program prints it.
    private func expectRefused(_ arguments: [String], saying message: String) {
        do {
            _ = try HybridSecurityKeyCommand.parse(arguments)
            Issue.record("\(arguments) was accepted")
        } catch {
            #expect(HybridSecurityKeyCommand.message(for: error) == message)
        }
    }
}
