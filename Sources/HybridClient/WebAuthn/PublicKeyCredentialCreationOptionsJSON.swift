import Foundation

/// `PublicKeyCredentialCreationOptionsJSON` (WebAuthn L3 §5.1.x), the JSON a relying party hands to
/// `PublicKeyCredential.parseCreationOptionsFromJSON()`, with binary members already decoded.
///
/// Required members (`rp`, `rp.name`, `user`, `user.id`, `user.name`, `user.displayName`, `challenge`,
/// `pubKeyCredParams`) must be present with the right JSON type. Enumeration strings this client does
/// not know are ignored, entries of `pubKeyCredParams` and `excludeCredentials` whose `type` is not
/// `"public-key"` are skipped. The extensions in ``RegistrationExtensionInputs`` are processed; other
/// extension identifiers are ignored (listed in ``ignoredExtensions``).
public struct PublicKeyCredentialCreationOptionsJSON: Sendable, Hashable {
    /// `PublicKeyCredentialRpEntity`.
    public struct RelyingParty: Sendable, Hashable {
        /// The RP ID; `nil` means "the origin's host".
        public var id: String?
        /// The human-palatable name.
        public var name: String

        /// A relying party from its ID (`nil`: the origin's host) and name.
        public init(id: String?, name: String) {
            self.id = id
            self.name = name
        }
    }

    /// `PublicKeyCredentialUserEntityJSON`.
    public struct User: Sendable, Hashable {
        /// The user handle, 1 to 64 bytes.
        public var id: [UInt8]
        /// The human-palatable name.
        public var name: String
        /// The user's display name.
        public var displayName: String

        /// A user from its handle and names.
        public init(id: [UInt8], name: String, displayName: String) {
            self.id = id
            self.name = name
            self.displayName = displayName
        }
    }

    /// `PublicKeyCredentialParameters`: one acceptable COSE algorithm.
    public struct CredentialParameters: Sendable, Hashable {
        /// `public-key`.
        public var type: String
        /// COSE algorithm identifier (-7 ES256, -8 EdDSA, -257 RS256, …).
        public var alg: Int64

        /// Parameters for the COSE algorithm `alg`.
        public init(alg: Int64, type: String = "public-key") {
            self.type = type
            self.alg = alg
        }

        /// What WebAuthn uses when `pubKeyCredParams` is empty: ES256 then RS256.
        public static let defaults: [CredentialParameters] = [.init(alg: -7), .init(alg: -257)]
    }

    /// The relying party.
    public var rp: RelyingParty
    /// The user account.
    public var user: User
    /// The challenge bytes (base64url in JSON).
    public var challenge: [UInt8]
    /// Only entries of type `public-key`, in the RP's order of preference.
    public var pubKeyCredParams: [CredentialParameters]
    /// Milliseconds, as the RP asked; `nil` if absent.
    public var timeout: UInt32?
    /// Credentials the phone must not already hold.
    public var excludeCredentials: [PublicKeyCredentialDescriptorJSON]
    /// Resident key, attachment and user verification requirements.
    public var authenticatorSelection: AuthenticatorSelectionCriteria
    /// The attestation conveyance preference.
    public var attestation: AttestationConveyancePreference
    /// Hints for the client's UI, in order (unknown values dropped).
    public var hints: [PublicKeyCredentialHint]
    /// The extensions this client processes.
    public var extensions: RegistrationExtensionInputs
    /// Other extension identifiers found in `extensions`, not processed; callers may warn about them.
    public var ignoredExtensions: [String]

    /// Creates the value from its members; the defaults are the WebAuthn defaults.
    public init(
        rp: RelyingParty,
        user: User,
        challenge: [UInt8],
        pubKeyCredParams: [CredentialParameters] = CredentialParameters.defaults,
        timeout: UInt32? = nil,
        excludeCredentials: [PublicKeyCredentialDescriptorJSON] = [],
        authenticatorSelection: AuthenticatorSelectionCriteria = .init(),
        attestation: AttestationConveyancePreference = .none,
        hints: [PublicKeyCredentialHint] = [],
        extensions: RegistrationExtensionInputs = .init(),
        ignoredExtensions: [String] = []
    ) {
        self.rp = rp
        self.user = user
        self.challenge = challenge
        self.pubKeyCredParams = pubKeyCredParams
        self.timeout = timeout
        self.excludeCredentials = excludeCredentials
        self.authenticatorSelection = authenticatorSelection
        self.attestation = attestation
        self.hints = hints
        self.extensions = extensions
        self.ignoredExtensions = ignoredExtensions
    }

    /// Parses the JSON form, bare or wrapped as `{"publicKey": {…}}`.
    public init(json: Data) throws(WebAuthnOptionsError) {
        self = try WebAuthnJSONDecoding.decode(Self.self, from: json)
    }
}

extension PublicKeyCredentialCreationOptionsJSON: Decodable {
    private enum CodingKeys: String, CodingKey {
        case rp, user, challenge, pubKeyCredParams, timeout, excludeCredentials, authenticatorSelection
        case attestation, hints, extensions
    }

    /// Decodes the JSON form, with the checks browsers make.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        rp = try container.decode(RelyingParty.self, forKey: .rp)
        user = try container.decode(User.self, forKey: .user)
        challenge = try container.decodeBase64URL(forKey: .challenge)
        let parameters = try container.decode([CredentialParameters].self, forKey: .pubKeyCredParams)
        if parameters.isEmpty {
            pubKeyCredParams = CredentialParameters.defaults
        } else {
            pubKeyCredParams = parameters.filter { $0.type == "public-key" }
            if pubKeyCredParams.isEmpty { throw WebAuthnOptionsError.noSupportedAlgorithm }
        }
        timeout = try container.decodeUnsignedLongIfPresent(forKey: .timeout)
        excludeCredentials =
            try (container.decodeIfPresent([PublicKeyCredentialDescriptorJSON].self, forKey: .excludeCredentials) ?? [])
            .publicKeyOnly
        authenticatorSelection =
            try container.decodeIfPresent(AuthenticatorSelectionCriteria.self, forKey: .authenticatorSelection)
            ?? .init()
        attestation =
            try container.decodeLenientEnum(AttestationConveyancePreference.self, forKey: .attestation) ?? .none
        hints = try container.decodeLenientEnumArray(PublicKeyCredentialHint.self, forKey: .hints)
        extensions = try container.decodeIfPresent(RegistrationExtensionInputs.self, forKey: .extensions) ?? .init()
        try extensions.checkCredentialProtection(selection: authenticatorSelection)
        ignoredExtensions = try container.decodeMemberNames(forKey: .extensions)
            .filter { !RegistrationExtensionInputs.processed.contains($0) }
    }
}

extension PublicKeyCredentialCreationOptionsJSON.RelyingParty: Decodable {
    private enum CodingKeys: String, CodingKey { case id, name }

    /// Decodes the JSON form, with the checks browsers make.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeIfPresent(String.self, forKey: .id)
        name = try container.decode(String.self, forKey: .name)
    }
}

extension PublicKeyCredentialCreationOptionsJSON.User: Decodable {
    private enum CodingKeys: String, CodingKey { case id, name, displayName }

    /// Decodes the JSON form, with the checks browsers make.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decodeBase64URL(forKey: .id)
        guard (1...64).contains(id.count) else { throw WebAuthnOptionsError.userIDLength(id.count) }
        name = try container.decode(String.self, forKey: .name)
        displayName = try container.decode(String.self, forKey: .displayName)
    }
}

extension PublicKeyCredentialCreationOptionsJSON.CredentialParameters: Decodable {
    private enum CodingKeys: String, CodingKey { case type, alg }

    /// Decodes the JSON form, with the checks browsers make.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(String.self, forKey: .type)
        alg = Int64(try container.decodeLong(forKey: .alg))
    }
}
