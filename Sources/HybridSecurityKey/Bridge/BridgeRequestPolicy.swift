import HybridCore

/// What the bridge does with one CTAP2 request (command byte + CBOR) from a program, decided
/// sans-IO from the request bytes alone.
///
/// - getInfo: answered locally (``SecurityKeyInfo``).
/// - makeCredential and getAssertion: forwarded to the phone in a hybrid ceremony, unless
///   - a silent probe (getAssertion with `up` false): answered CTAP2_ERR_NO_CREDENTIALS, as by a
///     key that holds none of the listed credentials. A probe must not reach a phone: it would
///     show UI for it and the session would burn out (protocol.md §8.1);
///   - a "touch to select" request (empty pinUvAuthParam, or libfido2/Chromium's `.dummy` RP):
///     held like authenticatorSelection, see below;
///   - a request the phone cannot serve: no ES256 among the algorithms
///     (CTAP2_ERR_UNSUPPORTED_ALGORITHM), `up` false on makeCredential (CTAP2_ERR_INVALID_OPTION);
///   - malformed: CTAP2_ERR_INVALID_CBOR, CTAP2_ERR_MISSING_PARAMETER, CTAP2_ERR_CBOR_UNEXPECTED_TYPE.
/// - authenticatorSelection: **held** (KEEPALIVE UPNEEDED) until the program cancels it or
///   ``selectionHoldLimit`` passes (then CTAP2_ERR_USER_ACTION_TIMEOUT). Hosts send selection
///   only when several keys are plugged in, to learn which one the user touches. A phone cannot
///   be "touched" without a whole ceremony (QR code, Bluetooth, tunnel) whose result would be
///   thrown away, and answering OK at once would steal every choice from the real keys. Holding
///   lets a real key win; with the bridge alone, hosts skip selection and go straight to the request.
/// - getNextAssertion: CTAP2_ERR_NOT_ALLOWED (phones return one assertion, with userSelected).
/// - anything else (clientPIN, reset, credential management, large blobs, config, unknown):
///   CTAP1_ERR_INVALID_COMMAND, as a phone answers them.
public enum BridgeDecision: Hashable, Sendable {
    /// Answer with these bytes (status + CBOR) now; `reason` is for logs.
    case answer([UInt8], reason: String)
    /// Run a phone ceremony carrying the request unchanged.
    case forward(HybridRequestType)
    /// Keep the program waiting (KEEPALIVE UPNEEDED), without a ceremony.
    case hold
}

public enum BridgeRequestPolicy {
    /// How long a held selection waits before CTAP2_ERR_USER_ACTION_TIMEOUT.
    public static let selectionHoldLimit: Duration = .seconds(30)

    public static func decide(_ request: [UInt8]) -> BridgeDecision {
        guard let first = request.first else { return answer(.invalidLength, "empty request") }
        let command = CTAPCommand(rawValue: first)
        let parameters = request.dropFirst()
        switch command {
        case .getInfo:
            guard parameters.isEmpty else { return answer(.invalidLength, "getInfo with parameters") }
            return .answer(SecurityKeyInfo.responseBytes, reason: "getInfo is answered locally")
        case .selection:
            return .hold
        case .getNextAssertion:
            return answer(.notAllowed, "the phone returns a single assertion")
        case .makeCredential, .getAssertion:
            let map: [CBORMapEntry]
            do {
                guard let entries = try CBORDecoder.decode(parameters).mapEntries else {
                    return answer(.cborUnexpectedType, "parameters are not a map")
                }
                map = entries
            } catch {
                return answer(.invalidCBOR, "parameters are not strict canonical CBOR")
            }
            return command == .makeCredential ? makeCredential(CBORValue.map(map)) : getAssertion(CBORValue.map(map))
        default:
            return answer(.invalidCommand, "\(command) is not served through a phone")
        }
    }

    /// The RP ID a makeCredential (`rp.id`, key 2) or getAssertion (`rpId`, key 1) names, for
    /// showing the person what is asked; nil for other commands or malformed requests.
    public static func relyingPartyID(of request: [UInt8]) -> String? {
        guard let first = request.first, let map = try? CBORDecoder.decode(request.dropFirst()) else { return nil }
        switch CTAPCommand(rawValue: first) {
        case .makeCredential: return map[intKey: 2]?[textKey: "id"]?.textValue
        case .getAssertion: return map[intKey: 1]?.textValue
        default: return nil
        }
    }

    private static func makeCredential(_ map: CBORValue) -> BridgeDecision {
        guard map[intKey: 1]?.bytesValue != nil else { return missing("clientDataHash") }
        guard let rp = map[intKey: 2], rp.mapEntries != nil else { return missing("rp") }
        guard map[intKey: 3]?.mapEntries != nil else { return missing("user") }
        guard let algorithms = map[intKey: 4]?.arrayValue else { return missing("pubKeyCredParams") }
        if isTouchRequest(map, key: 8) || rp[textKey: "id"]?.textValue == ".dummy" { return .hold }
        if option("up", in: map, key: 7) == false { return answer(.invalidOption, "makeCredential with up=false") }
        let es256 = algorithms.contains { $0[textKey: "alg"]?.intValue == COSEAlgorithm.es256 && $0[textKey: "type"]?.textValue == "public-key" }
        guard es256 else { return answer(.unsupportedAlgorithm, "phones create ES256 credentials only") }
        return .forward(.makeCredential)
    }

    private static func getAssertion(_ map: CBORValue) -> BridgeDecision {
        guard map[intKey: 1]?.textValue != nil else { return missing("rpId") }
        guard map[intKey: 2]?.bytesValue != nil else { return missing("clientDataHash") }
        if isTouchRequest(map, key: 6) { return .hold }
        if option("up", in: map, key: 5) == false {
            return answer(.noCredentials, "silent probe (up=false) never reaches the phone")
        }
        return .forward(.getAssertion)
    }

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
