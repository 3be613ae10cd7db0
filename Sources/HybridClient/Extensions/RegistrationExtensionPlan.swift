import HybridCTAP
import HybridCore

/// A registration's extensions for one phone, as Chromium specializes them
/// (`MakeCredentialRequestHandler::SpecializeRequestForAuthenticator`, `ProtectionPolicyToCredProtect`),
/// and the mapping of the phone's outputs back to client extension results. Sans-IO.
///
/// CTAP inputs sent (authenticatorMakeCredential key 6):
/// - `"prf": {}` or `"prf": {"eval": {"first": salt, "second"?: salt}}` when getInfo lists `prf`;
///   else `"hmac-secret": true` when it lists `hmac-secret` and a PIN/UV protocol (eval dropped);
///   else nothing, and the result is `prf.enabled: false`.
/// - `"credProtect": 1|2|3` when getInfo lists `credProtect`: the site's policy, or Chromium's default
///   (3 for `residentKey: required` with `userVerification: preferred`, else 2 when a resident key
///   may be made).
/// - `"largeBlob": {"support": "required"|"preferred"}` when getInfo lists `largeBlob` and the site asks
///   (`preferred` only with a resident key).
struct RegistrationExtensionPlan: Sendable, Hashable {
    enum PRFMode: Sendable, Hashable {
        case notRequested
        case unsupported
        case prf(eval: PRFValues?)
        case hmacSecret
    }

    var prf: PRFMode
    var credProps: Bool
    var residentKey: Bool
    /// `credProps.rk` as Chromium reports it; `nil` when unknown.
    var credPropsResidentKey: Bool?
    var credProtect: Int64?
    var credProtectSupported: Bool
    var largeBlobRequested: Bool
    var largeBlob: LargeBlobSupport?
    /// Why the request cannot go to this phone at all (Chromium's `IsCandidateAuthenticatorPostTouch`).
    var refusal: ClientExtensionError?

    init(
        options: PublicKeyCredentialCreationOptionsJSON, residentKey: Bool?,
        authenticatorInfo: AuthenticatorGetInfoResponse?
    ) {
        let inputs = options.extensions
        let support = ExtensionSupport(authenticatorInfo)
        if let prfInputs = inputs.prf {
            if support.prf {
                prf = .prf(eval: prfInputs.eval?.salts)
            } else if support.hmacSecret {
                prf = .hmacSecret
            } else {
                prf = .unsupported
            }
        } else {
            prf = .notRequested
        }
        credProps = inputs.credProps
        self.residentKey = residentKey == true
        credPropsResidentKey = Self.credPropsResidentKey(
            residentKey: residentKey == true, authenticatorInfo: authenticatorInfo)

        credProtectSupported = support.credProtect
        refusal = nil
        if inputs.enforceCredentialProtectionPolicy, !support.credProtect { refusal = .credentialProtectionUnsupported }
        credProtect = support.credProtect ? Self.credProtectLevel(options) : nil

        largeBlobRequested = inputs.largeBlob != nil
        switch inputs.largeBlob {
        case .required:
            largeBlob = .required
            if !support.largeBlob || !self.residentKey { refusal = refusal ?? .largeBlobUnsupported }
        case .preferred:
            largeBlob = support.largeBlob && self.residentKey ? .preferred : nil
        case nil:
            largeBlob = nil
        }
    }

    /// Chromium's `ConvertCTAPResponse`: a requested resident key is one; otherwise none was made
    /// if the authenticator cannot make them or is CTAP 2.1 (which makes them only when asked), and
    /// a CTAP 2.0 authenticator with resident keys may have made one anyway (unknown, `nil`).
    static func credPropsResidentKey(residentKey: Bool, authenticatorInfo: AuthenticatorGetInfoResponse?) -> Bool? {
        if residentKey { return true }
        guard let info = authenticatorInfo else { return nil }
        let supportsResidentKeys = info.options?["rk"] == true
        let atLeastCTAP21 = info.versions.contains { $0 == "FIDO_2_1" || $0 == "FIDO_2_2" }
        return !supportsResidentKeys || atLeastCTAP21 ? false : nil
    }

    /// The site's policy, or Chromium's default for an unspecified one.
    private static func credProtectLevel(_ options: PublicKeyCredentialCreationOptionsJSON) -> Int64? {
        if let policy = options.extensions.credentialProtectionPolicy { return Int64(policy.rawValue) }
        let selection = options.authenticatorSelection
        if selection.effectiveResidentKey == .required, selection.userVerification == .preferred {
            return Int64(CredentialProtectionPolicy.userVerificationRequired.rawValue)
        }
        if selection.effectiveResidentKey != .discouraged {
            return Int64(CredentialProtectionPolicy.userVerificationOptionalWithCredentialIDList.rawValue)
        }
        return nil
    }

    /// Whether the request must ask for UV where the phone has it (a PRF is being set up).
    var upgradesUserVerification: Bool {
        switch prf {
        case .prf, .hmacSecret: true
        case .notRequested, .unsupported: false
        }
    }

    /// The CTAP extensions map (key 6), or `nil` when empty.
    var ctapExtensions: CBORValue? {
        var entries: [CBORMapEntry] = []
        switch prf {
        case .prf(let eval):
            entries.append(CBORMapEntry(.text("prf"), .map(eval.map { [CBORMapEntry(.text("eval"), $0.cbor)] } ?? [])))
        case .hmacSecret:
            entries.append(CBORMapEntry(.text("hmac-secret"), .bool(true)))
        case .notRequested, .unsupported:
            break
        }
        if let credProtect { entries.append(CBORMapEntry(.text("credProtect"), .int(credProtect))) }
        if let largeBlob {
            entries.append(
                CBORMapEntry(.text("largeBlob"), .map([CBORMapEntry(.text("support"), .text(largeBlob.rawValue))])))
        }
        return entries.isEmpty ? nil : .map(entries)
    }

    /// Checks the phone's extension outputs (authenticator data and unsigned outputs, key 6) as
    /// Chromium's `ValidateResponseExtensions` and `ReadCTAPMakeCredentialResponse` do, refusing any
    /// output that was not requested, and returns the client extension results.
    func results(for response: MakeCredentialResponse) throws(ResponseMappingError) -> ClientExtensionResults {
        var hmacSecretCreated = false
        for (name, value) in try ExtensionOutputs.entries(response.authenticatorData.extensions) {
            switch name {
            case "credProtect":
                let requested = credProtect ?? 1
                guard credProtectSupported, let level = value.intValue, level >= requested, level <= 3 else {
                    throw .unexpectedExtension(name)
                }
            case "hmac-secret":
                guard prf == .hmacSecret, let created = value.boolValue else { throw .unexpectedExtension(name) }
                hmacSecretCreated = created
            default:
                throw .unexpectedExtension(name)
            }
        }
        var prfOutput: (enabled: Bool?, results: PRFValues?) = (nil, nil)
        var largeBlobSupported = false
        for (name, value) in try ExtensionOutputs.entries(response.unsignedExtensionOutputs) {
            switch name {
            case "prf":
                guard case .prf(let eval) = prf else { throw .unexpectedExtension(name) }
                prfOutput = try ExtensionOutputs.prf(value, evaluated: eval != nil)
            case "largeBlob":
                let supported = value[textKey: "supported"]
                guard largeBlob != nil, value.mapEntries != nil, supported == nil || supported?.boolValue != nil else {
                    throw .unexpectedExtension(name)
                }
                largeBlobSupported = supported?.boolValue ?? false
            default:
                throw .unexpectedExtension(name)
            }
        }
        if largeBlob == .required, !largeBlobSupported { throw .missingExtensionOutput("largeBlob") }

        var results = ClientExtensionResults()
        switch prf {
        case .notRequested: break
        case .unsupported: results.prf = .init(enabled: false)
        case .hmacSecret: results.prf = .init(enabled: hmacSecretCreated)
        case .prf: results.prf = .init(enabled: prfOutput.enabled == true, results: prfOutput.results)
        }
        if credProps { results.credProps = .init(rk: credPropsResidentKey) }
        if largeBlobRequested { results.largeBlob = .init(supported: largeBlobSupported) }
        return results
    }
}
