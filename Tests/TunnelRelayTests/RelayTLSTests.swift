import Foundation
import HybridCore
import TestChildProcess
import TestLoopbackRelay
import Testing

@testable import TunnelRelay

/// The relay's TLS settings (``RelayTLS``) as OpenSSL's `s_client`, an independent peer, sees
/// them: TLS 1.3 by default; under TLS 1.2 only ECDHE with an AEAD (Mozilla's "intermediate"
/// list for an ECDSA certificate), no CBC suite.
struct RelayTLSTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Fixtures")

    /// Runs `openssl s_client` against `port` with `arguments`; returns whether the handshake
    /// completed and the protocol it reports.
    static func handshake(port: Int, _ arguments: [String]) async throws -> (ok: Bool, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["s_client", "-connect", "127.0.0.1:\(port)", "-servername", "localhost"] + arguments
        let output = try await ChildProcess.run(process)
        return (output.status == 0, String(decoding: output.stdout, as: UTF8.self))
    }

    @Test func suitesAndVersions() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "apt-get install openssl")
        let files = RelayConfiguration.TLSFiles(
            certificateChain: Self.fixtures.appendingPathComponent("localhost-cert.pem").path,
            privateKey: Self.fixtures.appendingPathComponent("localhost-key.pem").path)
        try await RelayTest.withRelay({ $0.tls = files }) { relay, _ async throws in
            let tls13 = try await Self.handshake(port: relay.port, [])
            #expect(tls13.ok)
            #expect(tls13.output.contains("TLSv1.3"))
            for suite in [
                "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-ECDSA-CHACHA20-POLY1305",
            ] {
                let result = try await Self.handshake(port: relay.port, ["-tls1_2", "-cipher", suite])
                #expect(result.ok, "\(suite) refused")
                #expect(result.output.contains("Cipher is \(suite)"))
            }
            for cbc in ["ECDHE-ECDSA-AES128-SHA", "ECDHE-ECDSA-AES256-SHA", "ECDHE-ECDSA-AES128-SHA256"] {
                #expect(try await !Self.handshake(port: relay.port, ["-tls1_2", "-cipher", cbc]).ok, "\(cbc) accepted")
            }
        }
    }
}
