import HybridAuthenticator
import HybridConformance
import HybridCore
import TestFakePhone
import Testing

/// `hybrid-conformance client` against our own authenticator role (every check passes) and
/// against ``FaultyPhone`` (each fault fails the check that names it).
@Suite(.serialized) struct ClientModeTests {
    /// The checks that must pass against a conforming phone: all of them, but those in `skipped`,
    /// which must be skipped (a phone that does not offer what they judge).
    static func expectAllPass(_ report: ConformanceReport, skipped: Set<String> = []) {
        for result in report.results {
            let expected: CheckOutcome = skipped.contains(result.check.id) ? .skip : .pass
            #expect(result.outcome == expected, "\(result.check.id): \(result.outcome) — \(result.observed)")
        }
        #expect(Set(report.results.map(\.check.id)) == Set(ClientChecks.all.map(\.id)))
        #expect(report.succeeded)
    }

    /// FaultyPhone serves the tunnel only: it never puts a PSM in its advert.
    static let tunnelOnly: Set<String> = [ClientChecks.l2capSession.id]

    @Test("AuthenticatorRunner with \"none\" attestation passes every check, the sessions over its L2CAP channel")
    func runnerPassesWithNone() async throws {
        let l2cap = SocketPairL2CAP()
        let report = try await ClientLoopback.run(
            l2cap: l2cap, phone: ClientLoopback.runnerPhone(ClientLoopback.engine(), l2cap: l2cap))
        Self.expectAllPass(report)
        #expect(report.result(for: ClientChecks.makeCredentialAttestation.id)?.observed == "\"none\", {}")
        let l2capSession = report.result(for: ClientChecks.l2capSession.id)?.observed ?? ""
        #expect(l2capSession.contains("makeCredential over PSM"), "\(l2capSession)")
        #expect(l2capSession.contains("getAssertion over PSM"), "\(l2capSession)")
    }

    @Test("AuthenticatorRunner with \"packed\" self attestation passes every check")
    func runnerPassesWithPacked() async throws {
        let l2cap = SocketPairL2CAP()
        let report = try await ClientLoopback.run(
            l2cap: l2cap,
            phone: ClientLoopback.runnerPhone(ClientLoopback.engine(attestation: .packedSelf), l2cap: l2cap))
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
        Self.expectAllPass(report, skipped: Self.tunnelOnly)
        #expect(
            report.result(for: ClientChecks.makeCredentialAttestation.id)?.observed.contains(
                "verifies with the leaf key") == true)
    }

    @Test("a fault only in the getAssertion signature leaves every other check passing")
    func faultyPhoneIsCleanOtherwise() async throws {
        let report = try await run(.badSignature)
        for check in ClientChecks.all
        where check.id != FaultyPhone.Fault.badSignature.caughtBy && !Self.tunnelOnly.contains(check.id) {
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

    /// A phone that advertises a PSM and closes every channel to it at once (as
    /// `hybrid-conformance phone --fault closed-l2cap-psm` does on a real adapter): the client falls
    /// back to the tunnel, which carries every ceremony, and `client.l2cap.session` alone fails.
    @Test("a phone that does not serve the PSM it advertises fails client.l2cap.session, and nothing else")
    func unservedPSMFailsTheL2CAPSession() async throws {
        let l2cap = SocketPairL2CAP(.closesAtOnce)
        let report = try await ClientLoopback.run(
            l2cap: l2cap, phone: ClientLoopback.runnerPhone(ClientLoopback.engine(), l2cap: l2cap))
        let result = try #require(report.result(for: ClientChecks.l2capSession.id))
        #expect(result.outcome == .fail, "\(result.observed)")
        #expect(result.observed.contains("fell back to the tunnel"), "\(result.observed)")
        #expect(report.results(.fail).map(\.check.id) == [ClientChecks.l2capSession.id])
    }

    private func run(_ fault: FaultyPhone.Fault) async throws -> ConformanceReport {
        let engine = ClientLoopback.engine()
        return try await ClientLoopback.run { relay, air in
            let phone = FaultyPhone(engine: engine, fault: fault, relay: relay, air: air)
            return { url in try await phone.serve(qrURL: url) }
        }
    }
}
