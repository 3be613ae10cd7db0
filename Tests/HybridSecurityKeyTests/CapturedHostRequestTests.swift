import HybridCTAP
import HybridCore
import HybridSecurityKey
import Testing

/// ``BridgeRequestPolicy`` on requests captured from Firefox, Chromium and python-fido2
/// (``CapturedHostRequests``): what goes to the phone is the independent encoder's canonical,
/// rewritten form, and silent probes are answered without the phone.
@Suite struct CapturedHostRequestTests {
    static let forwarded: [CapturedHostRequests.Request] = [
        CapturedHostRequests.firefoxDiscoverableSignIn,
        CapturedHostRequests.firefoxSignInAfterClaim,
        CapturedHostRequests.firefoxRegistrationWithExcludeList,
        CapturedHostRequests.chromiumDiscoverableRegistration,
        CapturedHostRequests.chromiumSignIn64,
    ]

    @Test(arguments: CapturedHostRequestTests.forwarded)
    func realRequestsReachThePhoneCanonicalAndRewritten(request: CapturedHostRequests.Request) {
        var policy = BridgeRequestPolicy()
        guard case .forward(let phoneRequest) = policy.decide(request.bytes, at: .zero) else {
            Issue.record("\(request.name) was not forwarded")
            return
        }
        #expect(phoneRequest.bytes == (request.rewrittenForPhone ?? request.bytes))
        if request.rewrittenForPhone == nil { #expect(phoneRequest.rewrites.isEmpty) }
    }

    /// Firefox's silent probe (up=false, clientDataHash SHA-256("")) is claimed with the listed
    /// ID: status OK, the credential it names is the one in the probe.
    @Test func firefoxProbeIsClaimedWithItsListedID() throws {
        var policy = BridgeRequestPolicy()
        let request = CapturedHostRequests.firefoxProbe
        guard case .answer(let reply, _) = policy.decide(request.bytes, at: .zero) else {
            Issue.record("the probe was not answered by the key")
            return
        }
        #expect(reply.first == CTAPStatusCode.ok.rawValue)
        let response = try GetAssertionResponse(responseBytes: reply)
        #expect(response.credential?.id == request.firstListedID)
        #expect(response.signature.isEmpty)
    }

    /// python-fido2 probed 66 IDs as a full chunk of 64 and then 2 (captured when the key listed
    /// 64; it now lists 20, and a chunk of at least that many is full): the full chunk with no
    /// known ID is answered NO_CREDENTIALS (so the last chunk comes), the last chunk is claimed.
    @Test func pythonFido2ChunksAreAnsweredSoTheLastOneIsClaimed() throws {
        var policy = BridgeRequestPolicy()
        let full = CapturedHostRequests.pythonFido2FullChunkProbe
        let last = CapturedHostRequests.pythonFido2LastChunkProbe
        guard case .answer(let first, _) = policy.decide(full.bytes, at: .zero),
            case .answer(let second, _) = policy.decide(last.bytes, at: .milliseconds(300))
        else {
            Issue.record("a probe reached the phone")
            return
        }
        #expect(first == [CTAPStatusCode.noCredentials.rawValue])
        #expect(second.first == CTAPStatusCode.ok.rawValue)
        #expect(try GetAssertionResponse(responseBytes: second).credential?.id == last.firstListedID)
    }
}
