import ArgumentParser
import Testing

@testable import hybrid_security_key

/// `hybrid-security-key`'s relay choice: `--tunnel-server ID=URL` as `hybrid-client` takes it.
@Suite struct SecurityKeyCommandTests {
    @Test func tunnelServerIsAccepted() throws {
        let command = try HybridSecurityKeyCommand.parse([
            "--tunnel-server", "0=wss://relay.example.com", "--tunnel-server", "256=ws://127.0.0.1:8080",
        ])
        #expect(command.tunnelServers == ["0=wss://relay.example.com", "256=ws://127.0.0.1:8080"])
    }

    @Test(arguments: ["2=ws://127.0.0.1:8080", "0=http://127.0.0.1:8080", "ws://127.0.0.1:8080"])
    func tunnelServerRejectsBadPairs(_ text: String) {
        #expect(throws: (any Error).self) { try HybridSecurityKeyCommand.parse(["--tunnel-server", text]) }
    }
}
