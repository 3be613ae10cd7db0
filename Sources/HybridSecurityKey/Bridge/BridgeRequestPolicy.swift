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
/// listed in `rewrites` (empty when the program's request went unchanged). Two are equal when
/// their bytes, type and rewrites are: the RP ID and the listed IDs are read from the same request.
package struct PhoneRequest: Hashable, Sendable {
    /// The command byte and the canonical CBOR parameters.
    package var bytes: [UInt8]
    /// The request type the QR code announces.
    package var type: HybridRequestType
    /// What was changed, one short phrase each, for logs.
    package var rewrites: [String]
    /// The RP ID the request names, for showing the person what is asked.
    package var relyingPartyID: String?
    /// The IDs of the allow list (getAssertion) or exclude list (makeCredential) the phone gets.
    package var listedIDs: [[UInt8]]

    /// A request as the policy built it (tests build the expected one).
    package init(
        bytes: [UInt8], type: HybridRequestType, rewrites: [String] = [], relyingPartyID: String? = nil,
        listedIDs: [[UInt8]] = []
    ) {
        self.bytes = bytes
        self.type = type
        self.rewrites = rewrites
        self.relyingPartyID = relyingPartyID
        self.listedIDs = listedIDs
    }

    package static func == (a: Self, b: Self) -> Bool {
        a.bytes == b.bytes && a.type == b.type && a.rewrites == b.rewrites
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(bytes)
        hasher.combine(type)
        hasher.combine(rewrites)
    }
}

/// What the bridge does with each request a program sends, decided sans-IO: the request bytes,
/// the time (injected) and the state below. docs/security-key.md "What the key does with each request"
/// tells users the same.
///
/// - getInfo: answered locally (``SecurityKeyInfo``).
/// - makeCredential and getAssertion are decoded once, leniently, into HybridCTAP's typed
///   requests (``HostRequest``: map keys in any order, Firefox writes its getAssertion options as
///   `{"uv", "up"}`) and re-encoded canonically, so the phone only ever gets canonical CBOR.
///   Non-minimal integers, duplicate keys, indefinite lengths, tags, floats and trailing bytes
///   stay CTAP2_ERR_INVALID_CBOR: no host we know sends them.
/// - Silent probes (getAssertion with `up` false) never reach the phone: ``probe(ids:rpID:at:)``.
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
            do {
                switch try HostRequest.decode(command: command, parameters: parameters) {
                case .makeCredential(let request, let map)?: return makeCredential(request, map, at: now)
                case .getAssertion(let request, let map)?: return getAssertion(request, map, at: now)
                case nil: return Self.answer(.invalidCommand, "\(command) is not served through a phone")
                }
            } catch {
                return Self.answer(error.status, error.reason)
            }
        default:
            return Self.answer(.invalidCommand, "\(command) is not served through a phone")
        }
    }

    /// The RP ID a makeCredential (`rp.id`, key 2) or getAssertion (`rpId`, key 1) names, for
    /// showing the person what is asked; nil for other commands or malformed requests.
    package static func relyingPartyID(of request: [UInt8]) -> String? {
        guard let first = request.first else { return nil }
        return (try? HostRequest.decode(command: CTAPCommand(rawValue: first), parameters: request.dropFirst()))??
            .relyingPartyID
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
            let single = request.listedIDs.count == 1 ? request.listedIDs.first : nil
            guard let id = response.credential?.id ?? single else { return false }
            return knownCredentials.remember(id, rpIDHash: response.authenticatorData.rpIDHash)
        default:
            return false
        }
    }

    // MARK: - makeCredential and getAssertion

    private mutating func makeCredential(_ request: MakeCredentialRequest, _ map: CBORValue, at now: Duration)
        -> BridgeDecision
    {
        let rpID = request.rp.id
        if request.pinUvAuthParam?.isEmpty == true || Self.touchRPIDs.contains(rpID) { return touch(at: now) }
        if request.options?.userPresence == false {
            return Self.answer(.invalidOption, "makeCredential with up=false")
        }
        let es256 = request.publicKeyCredentialParameters.contains {
            $0.algorithm == COSEAlgorithm.es256 && $0.type == PublicKeyCredentialDescriptor.publicKeyType
        }
        guard es256 else { return Self.answer(.unsupportedAlgorithm, "phones create ES256 credentials only") }
        var rewrites: [String] = []
        let ids = (request.excludeList ?? []).map(\.id)
        let (restored, listed) = restoreList(in: map, key: 5, ids: ids, rpID: rpID, at: now, rewrites: &rewrites)
        let normalized = PhoneRequestNormalizer.makeCredential(restored, rewrites: &rewrites)
        return .forward(
            PhoneRequest(
                bytes: [CTAPCommand.makeCredential.rawValue] + CBOREncoder.encode(normalized), type: .makeCredential,
                rewrites: rewrites, relyingPartyID: rpID, listedIDs: listed))
    }

    private mutating func getAssertion(_ request: GetAssertionRequest, _ map: CBORValue, at now: Duration)
        -> BridgeDecision
    {
        let ids = (request.allowList ?? []).map(\.id)
        if request.pinUvAuthParam?.isEmpty == true { return touch(at: now) }
        if request.options?.userPresence == false {
            return probe(ids: ids, rpID: request.rpID, clientDataHash: request.clientDataHash, at: now)
        }
        var rewrites: [String] = []
        let (restored, listed) = restoreList(
            in: map, key: 3, ids: ids, rpID: request.rpID, at: now, rewrites: &rewrites)
        let normalized = PhoneRequestNormalizer.getAssertion(restored, rewrites: &rewrites)
        return .forward(
            PhoneRequest(
                bytes: [CTAPCommand.getAssertion.rawValue] + CBOREncoder.encode(normalized), type: .getAssertion,
                rewrites: rewrites, relyingPartyID: request.rpID, listedIDs: listed))
    }

    // MARK: - Probes

    /// A silent probe (getAssertion with `up` false) never reaches the phone: it would show UI and
    /// burn the session (protocol.md §8.1). It is answered locally with a claim of one listed ID
    /// (``syntheticAssertion(id:rpIDHash:)``) or CTAP2_ERR_NO_CREDENTIALS, and its list is kept
    /// to restore the real request (``restoreList(in:key:ids:rpID:at:rewrites:)``). Which answer,
    /// and why claiming is right for sign-in and registration alike: docs/security-key.md
    /// "Silent probes: what the key claims and why".
    private mutating func probe(ids: [[UInt8]], rpID: String, clientDataHash: [UInt8], at now: Duration)
        -> BridgeDecision
    {
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
        if clientDataHash == Self.firefoxProbeHash && ids.count <= SecurityKeyInfo.firefoxListLimit {
            return claim(
                ids[0], rpIDHash: rpIDHash,
                reason: "silent probe: Firefox's only chunk; claims the first listed ID for the whole list")
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

    /// The request's list at `key` (allowList 3, excludeList 5), whose IDs are `ids`, replaced by
    /// the probes' lists when the program reduced it after a claim
    /// (``ProbeMemory/restoration(of:rpID:at:)``); with the IDs of the list the phone gets.
    private mutating func restoreList(
        in map: CBORValue, key: Int64, ids: [[UInt8]], rpID: String, at now: Duration, rewrites: inout [String]
    ) -> (map: CBORValue, ids: [[UInt8]]) {
        guard let restored = probes.restoration(of: ids, rpID: rpID, at: now) else { return (map, ids) }
        rewrites.append("restored the \(restored.count) IDs of the probes for the \(ids.count) the program kept")
        let list = CBORValue.array(restored.map { PublicKeyCredentialDescriptor(id: $0).cbor })
        return (map.setting(.int(key), to: list), restored)
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

    /// The clientDataHash of Firefox's silent probes, SHA-256 of the empty string
    /// (authenticator-rs `do_credential_list_filtering_ctap2`).
    static let firefoxProbeHash: [UInt8] = [
        0xE3, 0xB0, 0xC4, 0x42, 0x98, 0xFC, 0x1C, 0x14, 0x9A, 0xFB, 0xF4, 0xC8, 0x99, 0x6F, 0xB9, 0x24,
        0x27, 0xAE, 0x41, 0xE4, 0x64, 0x9B, 0x93, 0x4C, 0xA4, 0x95, 0x99, 0x1B, 0x78, 0x52, 0xB8, 0x55,
    ]

    /// Whether `rpID` is a WebAuthn RP ID (a domain): no colon, unlike AppID URLs (`https://…`),
    /// OpenSSH's `ssh:…` and pam_u2f's `pam://…`.
    static func isWebAuthnRPID(_ rpID: String) -> Bool { !rpID.contains(":") }

    private static func answer(_ status: CTAPStatusCode, _ reason: String) -> BridgeDecision {
        .answer([status.rawValue], reason: reason)
    }
}
