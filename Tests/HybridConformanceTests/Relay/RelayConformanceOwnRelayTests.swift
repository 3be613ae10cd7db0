import HybridConformance
import Testing

/// `hybrid-conformance relay` against our own relay: every check that runs passes.
@Suite(.serialized) struct RelayConformanceOwnRelayTests {
    /// Fails the test for every check that did not pass, naming it and what was observed.
    static func expectAllPass(
        _ report: ConformanceReport, skipped: [ConformanceCheck], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let skippedIDs = Set(skipped.map(\.id))
        for check in RelayChecks.all {
            let result = report.result(for: check.id)
            let expected: CheckOutcome = skippedIDs.contains(check.id) ? .skip : .pass
            #expect(
                result?.outcome == expected, "\(check.id): \(result?.observed ?? "missing")",
                sourceLocation: sourceLocation)
        }
        #expect(report.results.count == RelayChecks.all.count, sourceLocation: sourceLocation)
        #expect(report.succeeded, sourceLocation: sourceLocation)
    }

    @Test func plainWebSocket() async throws {
        let report = try await InProcessRelay.with { port in
            try await InProcessRelay.check("ws://127.0.0.1:\(port)")
        }
        Self.expectAllPass(report, skipped: RelayChecks.tls + RelayChecks.slow)
        #expect(report.result(for: RelayChecks.tlsVersion.id)?.observed.contains("not wss://") == true)
        #expect(report.result(for: RelayChecks.pendingKept.id)?.observed.contains("--slow") == true)
    }

    @Test func tls() async throws {
        let report = try await InProcessRelay.with(tls: true) { port in
            try await InProcessRelay.check("wss://localhost:\(port)") { $0.caFile = InProcessRelay.certificate }
        }
        Self.expectAllPass(report, skipped: RelayChecks.slow)
        #expect(report.result(for: RelayChecks.tlsVersion.id)?.observed == "negotiated TLS 1.3")
    }

    /// The slow checks, against a relay whose timeouts are shorter than the defaults and limits that
    /// leave them room on both sides (the checks wait for the relay's close itself, never for a
    /// fixed time). The timeouts stay long enough that the other checks' tunnels, which pair and
    /// finish in well under a second, never meet them on a loaded machine.
    @Test func slowChecksWithShortTimeouts() async throws {
        let report = try await InProcessRelay.with({
            $0.pendingTunnelTTL = .seconds(30)
            $0.pairedTunnelLifetime = .seconds(30)
        }) { port in
            try await InProcessRelay.check("http://127.0.0.1:\(port)") {
                $0.slow = true
                $0.limits.pendingMinimum = .zero
                $0.limits.pendingMaximum = .seconds(90)
                $0.limits.idleMinimum = .zero
                $0.limits.idleMaximum = .seconds(90)
            }
        }
        Self.expectAllPass(report, skipped: RelayChecks.tls)
        #expect(report.result(for: RelayChecks.pendingExpires.id)?.observed.contains("close 4002") == true)
        #expect(report.result(for: RelayChecks.idleExpires.id)?.observed.contains("close 4003") == true)
    }
}
