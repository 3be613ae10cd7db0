import HybridConformance
import Testing

/// Each deliberately broken relay is caught by the check that names its fault, and the same
/// scripted relay without a fault passes every check (so a failure is the fault's, not the script's).
///
/// Serialized: each case is a full run of about 40 connections, and twelve at once starve a
/// 2-core machine.
@Suite(.serialized) struct RelayConformanceFaultTests {
    /// The fault and the check that must fail because of it.
    static let cases: [(ScriptedRelay.Fault, ConformanceCheck)] = [
        (.noSubprotocolEcho, RelayChecks.subprotocolEchoed),
        (.acceptsMissingSubprotocol, RelayChecks.subprotocolRequired),
        (.acceptsPOST, RelayChecks.methodGetOnly),
        (.longRoutingIDHeader, RelayChecks.routingIDHeader),
        (.okForUnknownRoutingID, RelayChecks.connectUnknownRoutingID),
        (.noConflictOnDuplicate, RelayChecks.newDuplicate),
        (.reordersClientMessages, RelayChecks.forwardClientToPhone),
        (.dropsQueuedMessages, RelayChecks.forwardBeforePairing),
        (.wrongPeerCloseCode, RelayChecks.closePropagated),
        (.capsFramesAt64KiB, RelayChecks.forwardMaxSize),
        (.acceptsTrailingSlash, RelayChecks.pathMalformed),
        (.tls11Only, RelayChecks.tlsVersion),
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

    @Test(arguments: cases.map { ($0.0.rawValue, $0.1.id) })
    func faultIsCaught(fault: String, checkID: String) async throws {
        let fault = try #require(ScriptedRelay.Fault(rawValue: fault))
        let report = try await ScriptedRelay.with(fault: fault) { port in
            if fault == .tls11Only {
                try await InProcessRelay.check("wss://localhost:\(port)") { $0.caFile = InProcessRelay.certificate }
            } else {
                try await InProcessRelay.check("ws://127.0.0.1:\(port)")
            }
        }
        let result = try #require(report.result(for: checkID))
        #expect(result.outcome == .fail, "\(checkID): \(result.observed)")
        #expect(!report.succeeded)
        print("fault \(fault.rawValue) -> FAIL \(checkID): \(result.observed)")
    }
}
