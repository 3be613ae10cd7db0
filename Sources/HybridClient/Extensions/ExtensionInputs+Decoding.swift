import HybridCTAP
import HybridCore

/// Decoding of the extension inputs from the options JSON, with the checks browsers make before a
/// request starts (Blink's `CredentialsContainer` and Chromium's `AuthenticatorCommonImpl`).

extension PRFInputs: Decodable {
    private enum CodingKeys: String, CodingKey { case eval, evalByCredential }

    /// Decodes the JSON form, with the checks browsers make.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        eval = try container.decodeIfPresent(PRFValues.self, forKey: .eval)
        var byCredential: [[UInt8]: PRFValues] = [:]
        for (key, values) in try container.decodeIfPresent([String: PRFValues].self, forKey: .evalByCredential) ?? [:] {
            guard let id = WebAuthnJSONDecoding.base64URL(key), !id.isEmpty else {
                throw WebAuthnOptionsError.invalidExtensionInput("prf.evalByCredential has a key that is not base64url")
            }
            byCredential[id] = values
        }
        evalByCredential = byCredential
    }

    /// Whether `evalByCredential` was present (even empty), which `create()` refuses.
    static func hasEvalByCredential(_ decoder: any Decoder) throws -> Bool {
        try decoder.container(keyedBy: CodingKeys.self).contains(.evalByCredential)
    }
}

/// `AuthenticationExtensionsLargeBlobInputsJSON`.
private struct LargeBlobInputsJSON: Decodable {
    var support: String?
    var read: Bool?
    var write: [UInt8]?

    private enum CodingKeys: String, CodingKey { case support, read, write }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        support = try container.decodeIfPresent(String.self, forKey: .support)
        read = try container.decodeIfPresent(Bool.self, forKey: .read)
        write = try container.contains(.write) ? container.decodeBase64URL(forKey: .write) : nil
    }
}

/// `prf` decoded only to learn whether `evalByCredential` is present.
private struct PRFPresence: Decodable {
    var hasEvalByCredential: Bool
    init(from decoder: any Decoder) throws { hasEvalByCredential = try PRFInputs.hasEvalByCredential(decoder) }
}

extension RegistrationExtensionInputs: Decodable {
    private enum CodingKeys: String, CodingKey {
        case prf, credProps, largeBlob, credentialProtectionPolicy, enforceCredentialProtectionPolicy
    }

    /// Decodes the JSON form, with the checks browsers make.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        prf = try container.decodeIfPresent(PRFInputs.self, forKey: .prf)
        if prf != nil, try container.decode(PRFPresence.self, forKey: .prf).hasEvalByCredential {
            throw WebAuthnOptionsError.unsupportedExtensionInput("prf.evalByCredential is only allowed in get()")
        }
        credProps = try container.decodeIfPresent(Bool.self, forKey: .credProps) ?? false
        largeBlob = nil
        if let blob = try container.decodeIfPresent(LargeBlobInputsJSON.self, forKey: .largeBlob) {
            guard blob.read == nil, blob.write == nil else {
                throw WebAuthnOptionsError.unsupportedExtensionInput(
                    "largeBlob.read and .write are only allowed in get()")
            }
            largeBlob = blob.support.map { $0 == LargeBlobSupport.required.rawValue ? .required : .preferred }
        }
        credentialProtectionPolicy = try container.decodeIfPresent(String.self, forKey: .credentialProtectionPolicy)
            .flatMap(CredentialProtectionPolicy.init(webAuthnName:))
        enforceCredentialProtectionPolicy =
            try container.decodeIfPresent(Bool.self, forKey: .enforceCredentialProtectionPolicy) ?? false
    }

    /// Chromium's `PROTECTION_POLICY_INCONSISTENT` checks: enforcing needs a policy above
    /// `userVerificationOptional`; `userVerificationOptional` needs a possible resident key;
    /// `userVerificationRequired` needs `userVerification: "required"`.
    func checkCredentialProtection(selection: AuthenticatorSelectionCriteria) throws(WebAuthnOptionsError) {
        let policy = credentialProtectionPolicy
        let mightCreateResidentKey = selection.effectiveResidentKey != .discouraged
        if enforceCredentialProtectionPolicy, policy == nil || policy == .userVerificationOptional {
            throw .unsupportedExtensionInput(
                "enforceCredentialProtectionPolicy needs a policy above userVerificationOptional")
        }
        if policy == .userVerificationOptional, !mightCreateResidentKey {
            throw .unsupportedExtensionInput("credentialProtectionPolicy userVerificationOptional needs a resident key")
        }
        if policy == .userVerificationRequired, selection.userVerification != .required {
            throw .unsupportedExtensionInput(
                "credentialProtectionPolicy userVerificationRequired needs userVerification required")
        }
    }
}

extension AuthenticationExtensionInputs: Decodable {
    private enum CodingKeys: String, CodingKey { case prf, largeBlob }

    /// Decodes the JSON form, with the checks browsers make.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        prf = try container.decodeIfPresent(PRFInputs.self, forKey: .prf)
        largeBlobRead = false
        largeBlobWrite = nil
        if let blob = try container.decodeIfPresent(LargeBlobInputsJSON.self, forKey: .largeBlob) {
            guard blob.support == nil else {
                throw WebAuthnOptionsError.unsupportedExtensionInput("largeBlob.support is only allowed in create()")
            }
            guard blob.read != true || blob.write == nil else {
                throw WebAuthnOptionsError.unsupportedExtensionInput("largeBlob cannot read and write at once")
            }
            largeBlobRead = blob.read ?? false
            largeBlobWrite = blob.write
        }
    }

    /// The checks that need the allow list: `evalByCredential` keys must name allowed credentials
    /// (and needs a non-empty list); `largeBlob.write` needs exactly one allowed credential.
    func check(allowCredentials: [PublicKeyCredentialDescriptorJSON]) throws(WebAuthnOptionsError) {
        if let prf, !prf.evalByCredential.isEmpty {
            guard !allowCredentials.isEmpty else {
                throw .unsupportedExtensionInput("prf.evalByCredential needs allowCredentials")
            }
            let allowed = Set(allowCredentials.map(\.id))
            guard prf.evalByCredential.keys.allSatisfy(allowed.contains) else {
                throw .invalidExtensionInput("prf.evalByCredential names a credential not in allowCredentials")
            }
        }
        if largeBlobWrite != nil, allowCredentials.count != 1 {
            throw .unsupportedExtensionInput("largeBlob.write needs exactly one credential in allowCredentials")
        }
    }
}
