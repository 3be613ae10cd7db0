import HybridConformance
import Testing

/// Each deliberately broken relay is caught by the check that names its fault, and the same
/// scripted relay without a fault passes every check (so a failure is the fault's, not the script's).
///
/// Serialized: each case is a full run of about 40 connections, and twelve at once starve a
/// 2-core machine.
@Suite(.serialized) struct RelayConformanceFaultTests {
    /// The fault and the check that must fail because of it (or warn, for a relay that refuses with
    /// another status than ours: only the refusal is required).
    static let cases: [(ScriptedRelay.Fault, ConformanceCheck, CheckOutcome)] = [
        (.noSubprotocolEcho, RelayChecks.subprotocolEchoed, .fail),
        (.acceptsMissingSubprotocol, RelayChecks.subprotocolRequired, .fail),
        (.acceptsPOST, RelayChecks.methodGetOnly, .fail),
        (.longRoutingIDHeader, RelayChecks.routingIDHeader, .fail),
        (.okForUnknownRoutingID, RelayChecks.connectUnknownRoutingIDStatus, .warn),
        (.upgradesUnknownRoutingID, RelayChecks.connectUnknownRoutingID, .fail),
        (.noConflictOnDuplicate, RelayChecks.newDuplicate, .fail),
        (.badRequestOnDuplicate, RelayChecks.newDuplicateStatus, .warn),
        (.reordersClientMessages, RelayChecks.forwardClientToPhone, .fail),
        (.dropsQueuedMessages, RelayChecks.forwardBeforePairing, .fail),
        (.wrongPeerCloseCode, RelayChecks.closePropagated, .fail),
        (.capsFramesAt64KiB, RelayChecks.forwardMaxSize, .fail),
        (.acceptsTrailingSlash, RelayChecks.pathMalformed, .fail),
        (.tls11Only, RelayChecks.tlsVersion, .fail),
    ]

    @Test func everyFaultHasACase() {
        #expect(Set(Self.cases.map(\.0)) == Set(ScriptedRelay.Fault.allCases))
    }

    @Test func cleanScriptedRelayPassesEverything() async throws {
        let report = try await ScriptedRelay.with(fault: nil) { port in
            try await InProcessRelay.check("ws://127.0.0.1:\(port)")
        }
        RelayConformanceOwnRelayTests.expectAllPass(report, skipped: RelayChecks.tls + RelayChecks.slow)
    }

    @Test(arguments: cases.map { ($0.0.rawValue, $0.1.id, $0.2) })
    func faultIsCaught(fault: String, checkID: String, expected: CheckOutcome) async throws {
        let fault = try #require(ScriptedRelay.Fault(rawValue: fault))
        let report = try await ScriptedRelay.with(fault: fault) { port in
            if fault == .tls11Only {
                try await InProcessRelay.check("wss://localhost:\(port)") { $0.caFile = InProcessRelay.certificate }
            } else {
                try await InProcessRelay.check("ws://127.0.0.1:\(port)")
            }
        }
        let result = try #require(report.result(for: checkID))
        #expect(result.outcome == expected, "\(checkID): \(result.observed)")
        #expect(report.succeeded == (expected != .fail))
        print("fault \(fault.rawValue) -> \(result.outcome.rawValue.uppercased()) \(checkID): \(result.observed)")
    }
}
