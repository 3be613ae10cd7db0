import HybridCore
import HybridSecurityKey
import Testing

/// Every decision and rewrite of ``BridgeRequestPolicy``, with request bytes written out by hand
/// in the order each host writes them (``HandCBOR``) and an injected clock (plain durations).
@Suite struct BridgeRequestPolicyTests {
    typealias H = HandCBOR
    static let cdh = [UInt8](repeating: 0x11, count: 32)
    static let idA = [UInt8](repeating: 0xA1, count: 16)
    static let idB = [UInt8](repeating: 0xB2, count: 16)
    static let idC = [UInt8](repeating: 0xC3, count: 16)

    static func status(_ decision: BridgeDecision) -> UInt8? {
        if case .answer(let bytes, _) = decision { return bytes.first }
        return nil
    }

    static func phoneBytes(_ decision: BridgeDecision) -> [UInt8]? {
        if case .forward(let request) = decision { return request.bytes }
        return nil
    }

    static func probe(_ ids: [[UInt8]], rpID: String = "example.com") -> [UInt8] {
        H.getAssertion(rpID: rpID, clientDataHash: H.emptyHash, allow: ids.map(H.descriptor), options: H.upFalse)
    }

    /// python-fido2's silent probe: clientDataHash 32 zero bytes (`_filter_creds`).
    static func pythonFido2Probe(_ ids: [[UInt8]]) -> [UInt8] {
        H.getAssertion(
            clientDataHash: [UInt8](repeating: 0, count: 32), allow: ids.map(H.descriptor), options: H.upFalse)
    }

    /// maxCredentialCountInList: the chunk hosts probe long lists in.
    static let chunk = Int(SecurityKeyInfo.maxCredentialCountInList)

    static func firefoxSignIn(_ ids: [[UInt8]], rpID: String = "example.com") -> [UInt8] {
        H.getAssertion(rpID: rpID, clientDataHash: cdh, allow: ids.map(H.descriptor), options: H.firefoxUVUP)
    }

    static func canonicalSignIn(_ ids: [[UInt8]]) -> [UInt8] {
        H.getAssertion(clientDataHash: cdh, allow: ids.map(H.descriptor), options: H.canonicalUPUV)
    }

    // MARK: - Lenient host CBOR

    /// Firefox's getAssertion with user verification: `{"uv": true, "up": true}`. The strict
    /// decoder (what the key used before) refuses it; the key now forwards it canonically.
    @Test func firefoxOptionsOrderIsAcceptedAndMadeCanonical() {
        let request = H.getAssertion(clientDataHash: Self.cdh, allow: [], options: H.firefoxUVUP)
        #expect(throws: CBORError.unsortedKeys) { try CBORDecoder.decode(request.dropFirst()) }
        let policy = PolicyUnderTest()
        let expected = H.getAssertion(clientDataHash: Self.cdh, allow: [], options: H.canonicalUPUV)
        #expect(policy.decide(request, at: .zero) == .forward(PhoneRequest(bytes: expected, type: .getAssertion)))
    }

    /// Only key order is forgiven: everything else non-canonical is still INVALID_CBOR.
    static let malformed: [[UInt8]] = {
        let rpID: [UInt8] = [0x01] + HandCBOR.text("example.com")
        let hash: [UInt8] = [0x02] + HandCBOR.bytes(cdh)
        let duplicateUP: [UInt8] = [0x05, 0xA2, 0x62, 0x75, 0x70, 0xF5, 0x62, 0x75, 0x70, 0xF4]
        var requests: [[UInt8]] = []
        requests.append([0x02, 0xA3] + hash + rpID + hash)  // duplicate key 2, out of order
        requests.append([0x02, 0xA3] + rpID + hash + duplicateUP)  // duplicate "up" in options
        requests.append([0x02, 0xA2, 0x18, 0x01] + Array(rpID.dropFirst()) + hash)  // key 1 as 0x18 0x01
        requests.append([0x02, 0xBF] + rpID + hash + [0xFF])  // indefinite-length map
        requests.append([0x02, 0xA2] + rpID + hash + [0x00])  // trailing byte
        requests.append([0x02, 0xA2, 0x01, 0xC0] + Array(rpID.dropFirst()) + hash)  // tagged RP ID
        return requests
    }()

    @Test(arguments: BridgeRequestPolicyTests.malformed)
    func otherDeviationsAreStillRejected(request: [UInt8]) {
        let policy = PolicyUnderTest()
        #expect(Self.status(policy.decide(request, at: .zero)) == 0x12)
    }

    // MARK: - Probes

    @Test func probeIsClaimedWithTheFirstListedID() {
        let policy = PolicyUnderTest()
        #expect(
            policy.decide(Self.probe([Self.idA, Self.idB]), at: .zero)
                == .answer(
                    H.syntheticAssertion(Self.idA),
                    reason: "silent probe: claims the first listed ID; the phone chooses from the whole list"))
    }

    /// python-fido2's probe: clientDataHash 32 zero bytes, canonical CBOR.
    @Test func pythonFido2ProbeIsClaimedToo() {
        let policy = PolicyUnderTest()
        let request = H.getAssertion(
            clientDataHash: [UInt8](repeating: 0, count: 32), allow: [H.descriptor(Self.idB)], options: H.upFalse)
        guard case .answer(let bytes, _) = policy.decide(request, at: .zero) else {
            Issue.record("not answered")
            return
        }
        #expect(bytes == H.syntheticAssertion(Self.idB))
    }

    @Test func probeClaimsAnIDThePhoneReturnedBefore() {
        var known = KnownCredentials()
        known.remember(Self.idB, rpIDHash: H.exampleRPIDHash)
        let policy = PolicyUnderTest(knownCredentials: known)
        guard case .answer(let bytes, _) = policy.decide(Self.probe([Self.idA, Self.idB, Self.idC]), at: .zero) else {
            Issue.record("not answered")
            return
        }
        #expect(bytes == H.syntheticAssertion(Self.idB))
        // Known for another RP only: the first listed ID.
        var other = KnownCredentials()
        other.remember(Self.idB, rpIDHash: [UInt8](repeating: 7, count: 32))
        let policy2 = PolicyUnderTest(knownCredentials: other)
        guard case .answer(let bytes2, _) = policy2.decide(Self.probe([Self.idA, Self.idB]), at: .zero) else { return }
        #expect(bytes2 == H.syntheticAssertion(Self.idA))
    }

    @Test func probeWithoutAListIsNoCredentials() {
        let policy = PolicyUnderTest()
        #expect(Self.status(policy.decide(Self.probe([]), at: .zero)) == 0x2E)
    }

    /// AppID URLs (Firefox probes the appid extension's RP first and switches to it on success),
    /// OpenSSH's `ssh:` and pam_u2f's `pam://` get a claim only for an ID the phone returned:
    /// those probes choose between plugged-in keys. Not a miss: a touch afterwards is still held.
    @Test func nonWebAuthnRPIDsAreClaimedOnlyForKnownIDs() {
        let policy = PolicyUnderTest()
        for rpID in ["https://example.com/u2f/facets", "ssh:", "pam://host"] {
            #expect(Self.status(policy.decide(Self.probe([Self.idA], rpID: rpID), at: .zero)) == 0x2E)
        }
        #expect(policy.decide(Self.firefoxBlink, at: .milliseconds(1)) == .hold)
        var known = KnownCredentials()
        known.remember(
            Self.idB, rpIDHash: try! Hex.decode("e30610e8a162115960fe1ec223e6529c9f4b6e80200dcb5e5c321c8af1e2b1bf"))
        let sshKnown = PolicyUnderTest(knownCredentials: known)
        // SHA-256("ssh:") above (sha256sum); the known ID is claimed with that rpIdHash.
        guard case .answer(let bytes, _) = sshKnown.decide(Self.probe([Self.idA, Self.idB], rpID: "ssh:"), at: .zero)
        else { return }
        #expect(
            bytes
                == H.syntheticAssertion(
                    Self.idB,
                    rpIDHash: try! Hex.decode("e30610e8a162115960fe1ec223e6529c9f4b6e80200dcb5e5c321c8af1e2b1bf")))
    }

    /// Firefox after the claim sends only the claimed ID; the phone gets the whole list.
    @Test func reducedSignInGetsTheProbesListBack() {
        let policy = PolicyUnderTest()
        _ = policy.decide(Self.probe([Self.idA, Self.idB, Self.idC]), at: .zero)
        let decision = policy.decide(Self.firefoxSignIn([Self.idA]), at: .milliseconds(30))
        #expect(Self.phoneBytes(decision) == Self.canonicalSignIn([Self.idA, Self.idB, Self.idC]))
        // One probe restores one request.
        #expect(
            Self.phoneBytes(policy.decide(Self.firefoxSignIn([Self.idA]), at: .milliseconds(60)))
                == Self.canonicalSignIn([Self.idA]))
    }

    @Test func noRestorationForAnotherRPAfterTheWindowOrForAForeignList() {
        let policy = PolicyUnderTest()
        _ = policy.decide(Self.probe([Self.idA, Self.idB]), at: .zero)
        #expect(
            Self.phoneBytes(policy.decide(Self.firefoxSignIn([Self.idA], rpID: "example.org"), at: .seconds(1)))
                == H.getAssertion(
                    rpID: "example.org", clientDataHash: Self.cdh, allow: [H.descriptor(Self.idA)],
                    options: H.canonicalUPUV))
        #expect(
            Self.phoneBytes(policy.decide(Self.firefoxSignIn([Self.idC]), at: .seconds(1)))
                == Self.canonicalSignIn([Self.idC]))
        #expect(
            Self.phoneBytes(policy.decide(Self.firefoxSignIn([Self.idA]), at: BridgeRequestPolicy.probeWindow))
                == Self.canonicalSignIn([Self.idA]))
    }

    /// Hosts probe chunk by chunk (maxCredentialCountInList) and stop at the first claim: a full
    /// chunk with no known ID is "none", the shorter last chunk is claimed, and the real request
    /// gets every chunk's IDs.
    @Test func longListIsProbedInChunksAndRestoredWhole() {
        let ids = (0..<(2 * Self.chunk + 3)).map { [0xF0, UInt8($0)] as [UInt8] }
        let policy = PolicyUnderTest()
        #expect(Self.status(policy.decide(Self.pythonFido2Probe(Array(ids[0..<Self.chunk])), at: .zero)) == 0x2E)
        let second = Array(ids[Self.chunk..<(2 * Self.chunk)])
        #expect(Self.status(policy.decide(Self.pythonFido2Probe(second), at: .milliseconds(5))) == 0x2E)
        let last = Array(ids[(2 * Self.chunk)...])
        guard case .answer(let claim, _) = policy.decide(Self.pythonFido2Probe(last), at: .milliseconds(10)) else {
            Issue.record("last chunk not claimed")
            return
        }
        #expect(claim == H.syntheticAssertion(ids[2 * Self.chunk]))
        #expect(
            Self.phoneBytes(policy.decide(Self.firefoxSignIn([ids[2 * Self.chunk]]), at: .milliseconds(20)))
                == Self.canonicalSignIn(ids))
    }

    /// Firefox refuses lists longer than 20: its probe is its only chunk, claimed even when full,
    /// while python-fido2's full chunk of the same IDs lets the next one come.
    @Test func firefoxsFullChunkIsClaimed() {
        let ids = (0..<SecurityKeyInfo.firefoxListLimit).map { [0xF1, UInt8($0)] as [UInt8] }
        #expect(ids.count >= Self.chunk)
        let policy = PolicyUnderTest()
        guard case .answer(let claim, _) = policy.decide(Self.probe(ids), at: .zero) else {
            Issue.record("Firefox's probe reached the phone")
            return
        }
        #expect(claim == H.syntheticAssertion(ids[0]))
        #expect(
            Self.phoneBytes(policy.decide(Self.firefoxSignIn([ids[0]]), at: .milliseconds(20)))
                == Self.canonicalSignIn(ids))
        #expect(Self.status(PolicyUnderTest().decide(Self.pythonFido2Probe(ids), at: .zero)) == 0x2E)
    }

    @Test func fullChunkWithAKnownIDIsClaimed() {
        let ids = (0..<Self.chunk).map { [0xF0, UInt8($0)] as [UInt8] }
        var known = KnownCredentials()
        known.remember(ids[Self.chunk - 1], rpIDHash: H.exampleRPIDHash)
        let policy = PolicyUnderTest(knownCredentials: known)
        guard case .answer(let claim, _) = policy.decide(Self.pythonFido2Probe(ids), at: .zero) else { return }
        #expect(claim == H.syntheticAssertion(ids[Self.chunk - 1]))
    }

    /// python-fido2 sends the placeholder ID 0x00 when no probe matched.
    @Test func pythonFido2PlaceholderGetsTheProbesListBack() {
        let ids = (0..<Self.chunk).map { [0xF0, UInt8($0)] as [UInt8] }
        let policy = PolicyUnderTest()
        #expect(Self.status(policy.decide(Self.pythonFido2Probe(ids), at: .zero)) == 0x2E)
        let placeholder = H.getAssertion(
            clientDataHash: Self.cdh, allow: [H.descriptor([0x00])], options: [0xA1, 0x62, 0x75, 0x76, 0xF5])
        let expected = H.getAssertion(
            clientDataHash: Self.cdh, allow: ids.map(H.descriptor), options: [0xA1, 0x62, 0x75, 0x76, 0xF5])
        #expect(Self.phoneBytes(policy.decide(placeholder, at: .seconds(1))) == expected)
    }

    // MARK: - Exclude lists

    static let rp: [UInt8] = [0xA2] + H.text("id") + H.text("example.com") + H.text("name") + H.text("Example")
    static let user: [UInt8] =
        [0xA3] + H.text("id") + H.bytes([1, 2]) + H.text("name") + H.text("alice") + H.text("displayName")
        + H.text("Alice")

    static func registration(exclude: [[UInt8]]) -> [UInt8] {
        H.makeCredential(clientDataHash: cdh, rp: rp, user: user, exclude: exclude.map(H.descriptor))
    }

    /// The probe of an exclude list is claimed like any other; Firefox and python-fido2 then
    /// send makeCredential with excludeList = [claimed], and the phone gets the whole list to
    /// answer CREDENTIAL_EXCLUDED itself.
    @Test func reducedExcludeListGetsTheProbesListBack() {
        let policy = PolicyUnderTest()
        #expect(Self.status(policy.decide(Self.probe([Self.idA, Self.idB]), at: .zero)) == 0x00)
        #expect(
            Self.phoneBytes(policy.decide(Self.registration(exclude: [Self.idA]), at: .milliseconds(40)))
                == Self.registration(exclude: [Self.idA, Self.idB]))
    }

    /// A sign-in probe never adds an exclude list to a registration that has none.
    @Test func registrationWithoutExcludeListStaysWithout() {
        let policy = PolicyUnderTest()
        _ = policy.decide(Self.probe([Self.idA, Self.idB]), at: .zero)
        let request = Self.registration(exclude: [])
        #expect(
            policy.decide(request, at: .seconds(1)) == .forward(PhoneRequest(bytes: request, type: .makeCredential)))
    }

    // MARK: - Touch requests

    /// Firefox's `dummy_make_credentials_cmd`: rp {id: "make.me.blink"}, user {id: 00, name:
    /// "make.me.blink"}, ES256, empty pinUvAuthParam (8), pinUvAuthProtocol 1 (9).
    static let firefoxBlink = H.makeCredential(
        clientDataHash: [UInt8](repeating: 0x42, count: 32), rp: [0xA1] + H.text("id") + H.text("make.me.blink"),
        user: [0xA2] + H.text("id") + H.bytes([0]) + H.text("name") + H.text("make.me.blink"),
        extra: [[0x08, 0x40], [0x09, 0x01]])
    /// libfido2's and Chromium's touch request: rp {id: ".dummy"}, user {id: 00, name: "dummy"}.
    static let dummyTouch = H.makeCredential(
        clientDataHash: [UInt8](repeating: 0x43, count: 32), rp: [0xA1] + H.text("id") + H.text(".dummy"),
        user: [0xA2] + H.text("id") + H.bytes([0]) + H.text("name") + H.text("dummy"))

    @Test func touchWithoutAMissIsHeldLikeSelection() {
        let policy = PolicyUnderTest()
        #expect(policy.decide(Self.firefoxBlink, at: .zero) == .hold)
        #expect(policy.decide(Self.dummyTouch, at: .zero) == .hold)
        #expect(policy.decide([0x0B], at: .zero) == .hold)
    }

    @Test func touchRightAfterAMissEndsAtOnce() {
        let full = (0..<Self.chunk).map { [0xF0, UInt8($0)] as [UInt8] }
        let policy = PolicyUnderTest()
        _ = policy.decide(Self.pythonFido2Probe(full), at: .zero)
        #expect(policy.decide([0x0B], at: .milliseconds(5)) == .hold)  // selection: always held
        #expect(Self.status(policy.decide(Self.firefoxBlink, at: .milliseconds(10))) == 0x27)  // OPERATION_DENIED
        #expect(policy.decide(Self.firefoxBlink, at: .milliseconds(20)) == .hold)  // one miss, one touch
        _ = policy.decide(Self.pythonFido2Probe(full), at: .seconds(1))
        #expect(policy.decide(Self.firefoxBlink, at: .seconds(1) + BridgeRequestPolicy.probeWindow) == .hold)
    }

    /// Chromium sends `.dummy` after the phone's INVALID_CREDENTIAL.
    @Test func touchAfterAPhoneErrorEndsAtOnce() {
        let policy = PolicyUnderTest()
        guard case .forward(let request) = policy.decide(Self.canonicalSignIn([Self.idA]), at: .zero) else { return }
        #expect(policy.phoneReplied([0x22], to: request, at: .seconds(5)) == false)
        #expect(Self.status(policy.decide(Self.dummyTouch, at: .seconds(6))) == 0x27)
    }

    // MARK: - Normalising for phones

    @Test func transportsAreStrippedFromAllowAndExcludeLists() {
        let policy = PolicyUnderTest()
        let signIn = H.getAssertion(clientDataHash: Self.cdh, allow: [H.descriptorWithUSB(Self.idA)], options: nil)
        #expect(
            Self.phoneBytes(policy.decide(signIn, at: .zero))
                == H.getAssertion(clientDataHash: Self.cdh, allow: [H.descriptor(Self.idA)], options: nil))
        let registration = H.makeCredential(
            clientDataHash: Self.cdh, rp: Self.rp, user: Self.user, exclude: [H.descriptorWithUSB(Self.idB)])
        #expect(Self.phoneBytes(policy.decide(registration, at: .zero)) == Self.registration(exclude: [Self.idB]))
    }

    @Test func missingNamesAreSupplied() {
        let policy = PolicyUnderTest()
        let request = H.makeCredential(
            clientDataHash: Self.cdh, rp: [0xA1] + H.text("id") + H.text("example.com"),
            user: [0xA2] + H.text("id") + H.bytes([1, 2]) + H.text("name") + H.text("alice"))
        let expected = H.makeCredential(
            clientDataHash: Self.cdh,
            rp: [0xA2] + H.text("id") + H.text("example.com") + H.text("name") + H.text("example.com"),
            user: [0xA3] + H.text("id") + H.bytes([1, 2]) + H.text("name") + H.text("alice") + H.text("displayName")
                + H.text("alice"))
        guard case .forward(let phone) = policy.decide(request, at: .zero) else {
            Issue.record("not forwarded")
            return
        }
        #expect(phone.bytes == expected)
        #expect(phone.rewrites == ["rp.name set to the RP ID", "user.displayName set to user.name"])
    }

    /// OpenSSH (libfido2): rp {id: "ssh:"}, user {id: 32 zero bytes, name: "openssh"}. The user
    /// handle becomes SHA-256(clientDataHash ‖ handle), here SHA-256(5c×32 ‖ 00×32) (sha256sum).
    @Test func sshUserHandleIsMadeUniquePerKey() {
        let cdh = [UInt8](repeating: 0x5C, count: 32)
        let request = H.makeCredential(
            clientDataHash: cdh, rp: [0xA1] + H.text("id") + H.text("ssh:"),
            user: [0xA2] + H.text("id") + H.bytes([UInt8](repeating: 0, count: 32)) + H.text("name") + H.text("openssh")
        )
        let handle = try! Hex.decode("b3f36523d3beb6365a4346ce6ab728e58376e0736ca10847ee470cecd546acdc")
        let expected = H.makeCredential(
            clientDataHash: cdh, rp: [0xA2] + H.text("id") + H.text("ssh:") + H.text("name") + H.text("ssh:"),
            user: [0xA3] + H.text("id") + H.bytes(handle) + H.text("name") + H.text("openssh") + H.text("displayName")
                + H.text("openssh"))
        let policy = PolicyUnderTest()
        #expect(Self.phoneBytes(policy.decide(request, at: .zero)) == expected)
        // Another key (another challenge): another handle.
        let other = H.makeCredential(
            clientDataHash: [UInt8](repeating: 0x5D, count: 32), rp: [0xA1] + H.text("id") + H.text("ssh:"),
            user: [0xA2] + H.text("id") + H.bytes([UInt8](repeating: 0, count: 32)) + H.text("name") + H.text("openssh")
        )
        #expect(Self.phoneBytes(policy.decide(other, at: .zero))?.contains(subsequence: handle) == false)
    }

    @Test func aRequestNeedingNothingIsForwardedByteForByte() {
        let policy = PolicyUnderTest()
        let request = Self.registration(exclude: [Self.idA])
        #expect(policy.decide(request, at: .zero) == .forward(PhoneRequest(bytes: request, type: .makeCredential)))
    }

    // MARK: - Learning from the phone

    /// COSE_Key {1: 2, 3: -7, -1: 1, -2: x, -3: y} (RFC 9053), x and y arbitrary 32 bytes.
    static let coseKey: [UInt8] =
        [0xA5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20] + [UInt8](repeating: 0x01, count: 32) + [
            0x22, 0x58, 0x20,
        ] + [UInt8](repeating: 0x02, count: 32)

    @Test func phoneRepliesTeachCredentialIDs() throws {
        let policy = PolicyUnderTest()
        guard case .forward(let registration) = policy.decide(Self.registration(exclude: []), at: .zero) else { return }
        // makeCredential: {1: "none", 2: authData with AT (flags 0x45), 3: {}}.
        let authData =
            H.exampleRPIDHash + [0x45, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 16) + [0x00, 0x10] + Self.idC
            + Self.coseKey
        let made: [UInt8] = [0x00, 0xA3, 0x01] + H.text("none") + [0x02] + H.bytes(authData) + [0x03, 0xA0]
        #expect(policy.phoneReplied(made, to: registration, at: .seconds(1)))
        #expect(policy.knownCredentials.contains(Self.idC, rpIDHash: H.exampleRPIDHash))
        // getAssertion with one listed ID and no credential in the reply: the listed ID.
        guard case .forward(let signIn) = policy.decide(Self.canonicalSignIn([Self.idB]), at: .seconds(2)) else {
            return
        }
        let asserted: [UInt8] =
            [0x00, 0xA2, 0x02] + H.bytes(H.exampleRPIDHash + [0x05, 0, 0, 0, 2]) + [0x03] + H.bytes([0x30, 0x00])
        #expect(policy.phoneReplied(asserted, to: signIn, at: .seconds(3)))
        #expect(policy.knownCredentials.contains(Self.idB, rpIDHash: H.exampleRPIDHash))
        #expect(!policy.phoneReplied(asserted, to: signIn, at: .seconds(4)))  // nothing new
        // The next probe claims a known ID.
        guard case .answer(let claim, _) = policy.decide(Self.probe([Self.idA, Self.idC]), at: .seconds(5)) else {
            return
        }
        #expect(claim == H.syntheticAssertion(Self.idC))
    }
}

extension Array where Element: Equatable {
    func contains(subsequence: [Element]) -> Bool {
        guard subsequence.count <= count else { return false }
        return (0...(count - subsequence.count)).contains { Array(self[$0..<($0 + subsequence.count)]) == subsequence }
    }
}

/// The policy behind a reference, so that its mutating calls can sit inside `#expect`.
final class PolicyUnderTest {
    private var policy: BridgeRequestPolicy

    init(knownCredentials: KnownCredentials = KnownCredentials()) {
        policy = BridgeRequestPolicy(knownCredentials: knownCredentials)
    }

    var knownCredentials: KnownCredentials { policy.knownCredentials }

    func decide(_ request: [UInt8], at now: Duration) -> BridgeDecision { policy.decide(request, at: now) }

    func phoneReplied(_ reply: [UInt8], to request: PhoneRequest, at now: Duration) -> Bool {
        policy.phoneReplied(reply, to: request, at: now)
    }
}
