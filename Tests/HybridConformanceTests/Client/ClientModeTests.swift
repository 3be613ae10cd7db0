import HybridAuthenticator
import HybridConformance
import HybridCore
import Testing

/// `hybrid-conformance client` against our own authenticator role (every check passes) and
/// against ``FaultyPhone`` (each fault fails the check that names it).
@Suite(.serialized) struct ClientModeTests {
    /// The checks that must pass against a conforming phone: all of them.
    static func expectAllPass(_ report: ConformanceReport) {
        for result in report.results {
            #expect(result.outcome == .pass, "\(result.check.id): \(result.outcome) — \(result.observed)")
        }
        #expect(Set(report.results.map(\.check.id)) == Set(ClientChecks.all.map(\.id)))
        #expect(report.succeeded)
    }

    @Test("AuthenticatorRunner with \"none\" attestation passes every check")
    func runnerPassesWithNone() async throws {
        let report = try await ClientLoopback.run(phone: ClientLoopback.runnerPhone(ClientLoopback.engine()))
        Self.expectAllPass(report)
        #expect(report.result(for: ClientChecks.makeCredentialAttestation.id)?.observed == "\"none\", {}")
    }

    @Test("AuthenticatorRunner with \"packed\" self attestation passes every check")
    func runnerPassesWithPacked() async throws {
        let report = try await ClientLoopback.run(
            phone: ClientLoopback.runnerPhone(ClientLoopback.engine(attestation: .packedSelf)))
        Self.expectAllPass(report)
        #expect(
            report.result(for: ClientChecks.makeCredentialAttestation.id)?.observed.contains("signature verifies")
                == true)
    }

    @Test("\"packed\" attestation with an x5c certificate made by OpenSSL passes every check")
    func certificateAttestationPasses() async throws {
        let engine = ClientLoopback.engine()
        let report = try await ClientLoopback.run { relay, air in
            let phone = FaultyPhone(engine: engine, fault: nil, certificateAttestation: true, relay: relay, air: air)
            return { url in try await phone.serve(qrURL: url) }
        }
        Self.expectAllPass(report)
        #expect(
            report.result(for: ClientChecks.makeCredentialAttestation.id)?.observed.contains(
                "verifies with the leaf key") == true)
    }

    @Test("a fault only in the getAssertion signature leaves every other check passing")
    func faultyPhoneIsCleanOtherwise() async throws {
        let report = try await run(.badSignature)
        for check in ClientChecks.all where check.id != FaultyPhone.Fault.badSignature.caughtBy {
            #expect(report.result(for: check.id)?.outcome == .pass, "\(check.id)")
        }
    }

    @Test(
        "each injected fault fails the check that names it (or warns, for advice)",
        arguments: FaultyPhone.Fault.allCases)
    func faultIsCaught(_ fault: FaultyPhone.Fault) async throws {
        let report = try await run(fault)
        let result = try #require(report.result(for: fault.caughtBy))
        #expect(
            result.outcome == fault.outcome, "\(fault): \(result.check.id) was \(result.outcome) — \(result.observed)")
        #expect(
            report.succeeded == (fault.outcome != .fail),
            "failed: \(report.results(.fail).map { "\($0.check.id): \($0.observed)" })")
    }

    private func run(_ fault: FaultyPhone.Fault) async throws -> ConformanceReport {
        let engine = ClientLoopback.engine()
        return try await ClientLoopback.run { relay, air in
            let phone = FaultyPhone(engine: engine, fault: fault, relay: relay, air: air)
            return { url in try await phone.serve(qrURL: url) }
        }
    }
}
