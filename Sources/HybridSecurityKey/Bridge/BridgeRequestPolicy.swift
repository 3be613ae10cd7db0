import HybridCTAP
import HybridCore

/// What the bridge does with one CTAP2 request (command byte + CBOR) from a program.
package enum BridgeDecision: Hashable, Sendable {
    /// Answer with these bytes (status + CBOR) now; `reason` is for logs.
    case answer([UInt8], reason: String)
    /// Run a phone ceremony carrying this request (canonical, normalised for phones).
    case forward(PhoneRequest)
    /// Keep the program waiting (KEEPALIVE UPNEEDED), without a ceremony, until it cancels or
    /// ``BridgeRequestPolicy/selectionHoldLimit`` passes.
    case hold
}

/// A request as it goes to the phone: the command byte and canonical CBOR, after the rewrites
/// listed in `rewrites` (empty when the program's request went unchanged).
package struct PhoneRequest: Hashable, Sendable {
    /// The command byte and the canonical CBOR parameters.
    package var bytes: [UInt8]
    /// The request type the QR code announces.
    package var type: HybridRequestType
    /// What was changed, one short phrase each, for logs.
    package var rewrites: [String]

    /// A request as the policy built it (tests build the expected one).
    package init(bytes: [UInt8], type: HybridRequestType, rewrites: [String] = []) {
        self.bytes = bytes
        self.type = type
        self.rewrites = rewrites
    }
}

/// What the bridge does with each request a program sends, decided sans-IO: the request bytes,
/// the time (injected) and the state below. docs/security-key.md "What the key does with each request"
/// tells users the same.
///
/// - getInfo: answered locally (``SecurityKeyInfo``).
/// - makeCredential and getAssertion are decoded leniently (map keys in any order, see
///   ``CBORDecoder/MapKeyOrder/anyOrder``: Firefox writes its getAssertion options as
///   `{"uv", "up"}`) and re-encoded canonically, so the phone only ever gets canonical CBOR.
///   Non-minimal integers, duplicate keys, indefinite lengths, tags, floats and trailing bytes
///   stay CTAP2_ERR_INVALID_CBOR: no host we know sends them.
/// - Silent probes (getAssertion with `up` false) never reach the phone: ``probe(_:rpID:at:)``.
/// - Touch requests (empty pinUvAuthParam, RP `.dummy` from Chromium and libfido2,
///   `make.me.blink` from Firefox): ``touch(at:)``.
/// - makeCredential and getAssertion otherwise go to the phone, with the list the program
///   reduced after a probe restored (``ProbeMemory``) and the rewrites of
///   ``PhoneRequestNormalizer``; the phone's answer goes back unchanged.
/// - Requests a phone cannot serve are answered at once: no ES256 among the algorithms
///   (CTAP2_ERR_UNSUPPORTED_ALGORITHM), `up` false on makeCredential (CTAP2_ERR_INVALID_OPTION),
///   malformed (CTAP2_ERR_INVALID_CBOR, CTAP2_ERR_MISSING_PARAMETER, CTAP2_ERR_CBOR_UNEXPECTED_TYPE).
/// - authenticatorSelection: **held** (KEEPALIVE UPNEEDED) until the program cancels it or
///   ``selectionHoldLimit`` passes (then CTAP2_ERR_USER_ACTION_TIMEOUT). Hosts send selection
///   only when several keys are plugged in, to learn which one the user touches. A phone cannot
///   be "touched" without a whole ceremony whose result would be thrown away, and answering OK
///   at once would steal every choice from the real keys. Holding lets a real key win; with the
///   bridge alone, hosts skip selection and go straight to the request.
/// - getNextAssertion: CTAP2_ERR_NOT_ALLOWED (phones return one assertion, with userSelected).
/// - anything else (clientPIN, reset, credential management, large blobs, config, unknown):
///   CTAP1_ERR_INVALID_COMMAND, as a phone answers them. getInfo lists no `clientPin`, no
///   `pinUvAuthToken` and no hmac-secret, so no host we know sends clientPIN to the key.
package struct BridgeRequestPolicy: Sendable {
    /// How long a held selection or touch waits before CTAP2_ERR_USER_ACTION_TIMEOUT.
    package static let selectionHoldLimit: Duration = .seconds(30)
    /// How long a probe's list is kept to restore the real request that follows it, and how long
    /// after a miss a touch request ends at once. Hosts send the real request (or the touch)
    /// right after the probe, within milliseconds; 10 s leaves room for a loaded machine.
    package static let probeWindow: Duration = .seconds(10)
    /// RP IDs hosts use for a "touch the key" makeCredential: Chromium and libfido2 (`.dummy`),
    /// Firefox's authenticator-rs (`make.me.blink`, `dummy_make_credentials_cmd`).
    package static let touchRPIDs: Set<String> = [".dummy", "make.me.blink"]

    /// Credential IDs the phone returned through the key, per RP ID hash (persisted by the
    /// caller, see ``KnownCredentialsFile``).
    package private(set) var knownCredentials: KnownCredentials
    private var probes = ProbeMemory()
    /// When the program last learned that nothing matched: a probe answered
    /// CTAP2_ERR_NO_CREDENTIALS, or the phone's error. A touch request right after it is the
    /// program's "collect a touch, then fail" (``touch(at:)``).
    private var lastMiss: Duration?

    /// A policy that starts with `knownCredentials` (loaded from ``KnownCredentialsFile``) and no
    /// recent probes.
    package init(knownCredentials: KnownCredentials = KnownCredentials()) {
        self.knownCredentials = knownCredentials
    }

    /// What to do with `request` (command byte + parameters) arriving at `now`.
    package mutating func decide(_ request: [UInt8], at now: Duration) -> BridgeDecision {
        guard let first = request.first else { return Self.answer(.invalidLength, "empty request") }
        let command = CTAPCommand(rawValue: first)
        let parameters = request.dropFirst()
        switch command {
        case .getInfo:
            guard parameters.isEmpty else { return Self.answer(.invalidLength, "getInfo with parameters") }
            return .answer(SecurityKeyInfo.responseBytes, reason: "getInfo is answered locally")
        case .selection:
            return .hold
        case .getNextAssertion:
            return Self.answer(.notAllowed, "the phone returns a single assertion")
        case .makeCredential, .getAssertion:
            let map: CBORValue
            do {
                map = try CBORDecoder.decode(parameters, mapKeys: .anyOrder)
            } catch {
                return Self.answer(.invalidCBOR, "parameters are not CBOR that could be made canonical (\(error))")
            }
            guard map.mapEntries != nil else { return Self.answer(.cborUnexpectedType, "parameters are not a map") }
            return command == .makeCredential ? makeCredential(map, at: now) : getAssertion(map, at: now)
        default:
            return Self.answer(.invalidCommand, "\(command) is not served through a phone")
        }
    }

    /// The RP ID a makeCredential (`rp.id`, key 2) or getAssertion (`rpId`, key 1) names, for
    /// showing the person what is asked; nil for other commands or malformed requests.
    package static func relyingPartyID(of request: [UInt8]) -> String? {
        guard let first = request.first, let map = try? CBORDecoder.decode(request.dropFirst()) else { return nil }
        switch CTAPCommand(rawValue: first) {
        case .makeCredential: return map[intKey: 2]?[textKey: "id"]?.textValue
        case .getAssertion: return map[intKey: 1]?.textValue
        default: return nil
        }
    }

    /// The phone answered `reply` to `request`: a success teaches the credential ID it used or
    /// made (under the RP ID hash of its authData); an error counts as a miss for ``touch(at:)``.
    /// - Returns: whether ``knownCredentials`` changed (the caller persists it then).
    package mutating func phoneReplied(_ reply: [UInt8], to request: PhoneRequest, at now: Duration) -> Bool {
        guard reply.first == CTAPStatusCode.ok.rawValue else {
            lastMiss = now
            return false
        }
        switch request.type {
        case .makeCredential:
            guard let response = try? MakeCredentialResponse(responseBytes: reply),
                let credential = response.authenticatorData.attestedCredentialData
            else { return false }
            return knownCredentials.remember(credential.credentialID, rpIDHash: response.authenticatorData.rpIDHash)
        case .getAssertion:
            guard let response = try? GetAssertionResponse(responseBytes: reply) else { return false }
            // CTAP lets the phone omit the credential when the allow list had exactly one entry.
            guard let id = response.credential?.id ?? Self.singleListedID(in: request) else { return false }
            return knownCredentials.remember(id, rpIDHash: response.authenticatorData.rpIDHash)
        default:
            return false
        }
    }

    // MARK: - makeCredential and getAssertion

    private mutating func makeCredential(_ map: CBORValue, at now: Duration) -> BridgeDecision {
        guard map[intKey: 1]?.bytesValue != nil else { return Self.missing("clientDataHash") }
        guard let rp = map[intKey: 2], rp.mapEntries != nil else { return Self.missing("rp") }
        guard map[intKey: 3]?.mapEntries != nil else { return Self.missing("user") }
        guard let algorithms = map[intKey: 4]?.arrayValue else { return Self.missing("pubKeyCredParams") }
        let rpID = rp[textKey: "id"]?.textValue
        if Self.isTouchRequest(map, key: 8) || rpID.map(Self.touchRPIDs.contains) == true { return touch(at: now) }
        if Self.option("up", in: map, key: 7) == false {
            return Self.answer(.invalidOption, "makeCredential with up=false")
        }
        let es256 = algorithms.contains {
            $0[textKey: "alg"]?.intValue == COSEAlgorithm.es256 && $0[textKey: "type"]?.textValue == "public-key"
        }
        guard es256 else { return Self.answer(.unsupportedAlgorithm, "phones create ES256 credentials only") }
        guard let rpID else { return Self.missing("rp.id") }
        var rewrites: [String] = []
        let restored = restoreList(in: map, key: 5, rpID: rpID, at: now, rewrites: &rewrites)
        let normalized = PhoneRequestNormalizer.makeCredential(restored, rewrites: &rewrites)
        return .forward(
            PhoneRequest(
                bytes: [CTAPCommand.makeCredential.rawValue] + CBOREncoder.encode(normalized), type: .makeCredential,
                rewrites: rewrites))
    }

    private mutating func getAssertion(_ map: CBORValue, at now: Duration) -> BridgeDecision {
        guard let rpID = map[intKey: 1]?.textValue else { return Self.missing("rpId") }
        guard map[intKey: 2]?.bytesValue != nil else { return Self.missing("clientDataHash") }
        if Self.isTouchRequest(map, key: 6) { return touch(at: now) }
        if Self.option("up", in: map, key: 5) == false { return probe(map, rpID: rpID, at: now) }
        var rewrites: [String] = []
        let restored = restoreList(in: map, key: 3, rpID: rpID, at: now, rewrites: &rewrites)
        let normalized = PhoneRequestNormalizer.getAssertion(restored, rewrites: &rewrites)
        return .forward(
            PhoneRequest(
                bytes: [CTAPCommand.getAssertion.rawValue] + CBOREncoder.encode(normalized), type: .getAssertion,
                rewrites: rewrites))
    }

    // MARK: - Probes

    /// A silent probe (getAssertion with `up` false): Firefox before every non-empty allow and
    /// exclude list (authenticator-rs `do_credential_list_filtering_ctap2`, clientDataHash
    /// SHA-256("")), python-fido2 2.x likewise (`_filter_creds`, clientDataHash 32 zero bytes),
    /// Chromium only for lists it must batch or for appid/per-credential PRF. It never reaches
    /// the phone: that would show UI and burn the session (protocol.md §8.1).
    ///
    /// The answer: a synthetic assertion ("claim") naming one listed ID — one the phone returned
    /// before for this RP (``knownCredentials``) if any is listed, else the first — and the
    /// probe's list is remembered so that the real request, which then carries only the claimed
    /// ID, gets the whole list back before it goes to the phone (``restoreList``): the phone
    /// chooses among the credentials it really holds and says "no credentials" or "excluded"
    /// itself.
    ///
    /// Why claim even IDs never seen: a probe for an allow list (sign-in) and one for an exclude
    /// list (registration) are byte-for-byte alike in Firefox and python-fido2, with nothing
    /// different before them (both take their UV decision locally, then probe), so the key cannot
    /// tell them apart. Claiming is right for both: on sign-in the program sends the real
    /// getAssertion (not claiming makes Firefox send its `make.me.blink` touch and fail); on
    /// registration Firefox (CTAP2 path) and python-fido2 put the claimed ID into the
    /// makeCredential's exclude list and leave the verdict to the authenticator — neither reports
    /// "already registered" from the probe alone — and with the restored list the phone answers
    /// CTAP2_ERR_CREDENTIAL_EXCLUDED only when it really holds one.
    ///
    /// Only for WebAuthn RP IDs (domains, ``isWebAuthnRPID(_:)``). An RP ID with a colon is an
    /// AppID URL (Firefox and Chromium probe the `appid` extension's URL first and switch the real
    /// request to it on success: a claim would send the phone an RP it never registered), OpenSSH's
    /// `ssh:` or pam_u2f's `pam://`: those hosts probe only to find which of several plugged-in
    /// keys holds a credential, and a claim would take it from the real key. There the key claims
    /// only IDs the phone returned before, and otherwise answers CTAP2_ERR_NO_CREDENTIALS (not a
    /// miss for ``touch(at:)``).
    ///
    /// One exception: a full chunk (``SecurityKeyInfo/maxCredentialCountInList`` IDs or more)
    /// with no known ID is answered CTAP2_ERR_NO_CREDENTIALS, because hosts probe longer lists
    /// chunk by chunk and stop at the first claim: answering "none" lets the next chunk come, and
    /// the claim on the last (shorter) chunk restores all chunks seen. A list that is an exact
    /// multiple of the chunk size with no known ID then fails as before (the touch that follows
    /// ends at once, ``touch(at:)``).
    ///
    /// The synthetic assertion is only ever seen by the local program, which uses it to pick the
    /// list of its real request: credential {id, type}, authData = rpIdHash ‖ flags 0 ‖ counter 0
    /// (no UP, no UV: it attests nothing) and an empty signature, which no verifier accepts.
    /// Firefox and python-fido2 do not check the returned ID against their list; Chromium does,
    /// and a listed ID passes.
    private mutating func probe(_ map: CBORValue, rpID: String, at now: Duration) -> BridgeDecision {
        let ids = Self.listedIDs(map[intKey: 3])
        guard !ids.isEmpty else {
            lastMiss = now
            return Self.answer(.noCredentials, "silent probe without a list: nothing to claim")
        }
        probes.record(rpID: rpID, ids: ids, at: now)
        let rpIDHash = AuthenticatorData.rpIDHash(rpID)
        if let known = ids.first(where: { knownCredentials.contains($0, rpIDHash: rpIDHash) }) {
            return claim(
                known, rpIDHash: rpIDHash, reason: "silent probe: claims a listed ID the phone returned before")
        }
        guard Self.isWebAuthnRPID(rpID) else {
            return Self.answer(
                .noCredentials,
                "silent probe for a non-WebAuthn RP ID with no ID the phone returned: a real key may hold it")
        }
        if ids.count < Int(SecurityKeyInfo.maxCredentialCountInList) {
            return claim(
                ids[0], rpIDHash: rpIDHash,
                reason: "silent probe: claims the first listed ID; the phone chooses from the whole list")
        }
        lastMiss = now
        return Self.answer(.noCredentials, "silent probe of a full chunk with no known ID: lets the next chunk come")
    }

    private mutating func claim(_ id: [UInt8], rpIDHash: [UInt8], reason: String) -> BridgeDecision {
        lastMiss = nil
        return .answer(Self.syntheticAssertion(id: id, rpIDHash: rpIDHash), reason: reason)
    }

    /// The probe answer: status OK, {1: {id, type}, 2: rpIdHash ‖ 00 ‖ 00000000, 3: h''}.
    static func syntheticAssertion(id: [UInt8], rpIDHash: [UInt8]) -> [UInt8] {
        GetAssertionResponse(
            credential: PublicKeyCredentialDescriptor(id: id),
            authenticatorData: AuthenticatorData(rpIDHash: rpIDHash, flags: [], signCount: 0),
            signature: []
        ).encodedResponse
    }

    /// The request's list at `key` (allowList 3, excludeList 5) replaced by the probes' lists
    /// when the program reduced it after a claim (``ProbeMemory/restoration(of:rpID:at:)``).
    private mutating func restoreList(
        in map: CBORValue, key: Int64, rpID: String, at now: Duration, rewrites: inout [String]
    ) -> CBORValue {
        let ids = Self.listedIDs(map[intKey: key])
        guard let restored = probes.restoration(of: ids, rpID: rpID, at: now) else { return map }
        rewrites.append("restored the \(restored.count) IDs of the probes for the \(ids.count) the program kept")
        return map.setting(.int(key), to: .array(restored.map { PublicKeyCredentialDescriptor(id: $0).cbor }))
    }

    // MARK: - Touch requests

    /// A "touch the key" request: right after a miss (a probe answered CTAP2_ERR_NO_CREDENTIALS
    /// or a phone's error, within ``probeWindow``) it is the program's "collect a touch, then
    /// fail" (Firefox after an empty filtered allow list, Chromium after INVALID_CREDENTIAL or an
    /// empty batch), whose answer the program ignores: CTAP2_ERR_OPERATION_DENIED at once, so
    /// the program fails in seconds instead of after the 30 s hold. Otherwise it is a device
    /// selection (libfido2 and Firefox with several keys plugged in): held like
    /// authenticatorSelection, so a real key can win. OPERATION_DENIED, not PIN_INVALID or
    /// PIN_NOT_SET, because those mean "touched" to libfido2 and python-fido2 and would select
    /// the phone.
    private mutating func touch(at now: Duration) -> BridgeDecision {
        guard let miss = lastMiss, now - miss < Self.probeWindow else { return .hold }
        lastMiss = nil
        return Self.answer(.operationDenied, "touch request right after a miss: ends at once")
    }

    // MARK: - Helpers

    /// The IDs of a descriptor list (entries without a byte-string `id` are skipped).
    static func listedIDs(_ list: CBORValue?) -> [[UInt8]] {
        (list?.arrayValue ?? []).compactMap { $0[textKey: "id"]?.bytesValue }
    }

    private static func singleListedID(in request: PhoneRequest) -> [UInt8]? {
        guard let map = try? CBORDecoder.decode(request.bytes.dropFirst()) else { return nil }
        let ids = listedIDs(map[intKey: 3])
        return ids.count == 1 ? ids[0] : nil
    }

    /// Whether `rpID` is a WebAuthn RP ID (a domain): no colon, unlike AppID URLs (`https://…`),
    /// OpenSSH's `ssh:…` and pam_u2f's `pam://…`.
    static func isWebAuthnRPID(_ rpID: String) -> Bool { !rpID.contains(":") }

    /// An empty pinUvAuthParam (key 8 in makeCredential, 6 in getAssertion): CTAP 2.1's
    /// "touch the key" request.
    private static func isTouchRequest(_ map: CBORValue, key: Int64) -> Bool {
        map[intKey: key]?.bytesValue?.isEmpty == true
    }

    private static func option(_ name: String, in map: CBORValue, key: Int64) -> Bool? {
        map[intKey: key]?[textKey: name]?.boolValue
    }

    private static func missing(_ field: String) -> BridgeDecision { answer(.missingParameter, "missing \(field)") }

    private static func answer(_ status: CTAPStatusCode, _ reason: String) -> BridgeDecision {
        .answer([status.rawValue], reason: reason)
    }
}
