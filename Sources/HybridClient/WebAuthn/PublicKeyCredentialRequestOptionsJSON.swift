import Foundation

/// `PublicKeyCredentialRequestOptionsJSON` (WebAuthn L3 §5.1.x), the JSON a relying party hands to
/// `PublicKeyCredential.parseRequestOptionsFromJSON()`, with binary members already decoded.
///
/// Only `challenge` is required. Unknown enumeration strings are ignored, `allowCredentials` entries
/// whose `type` is not `"public-key"` are skipped. The extensions in ``AuthenticationExtensionInputs``
/// are processed; other extension identifiers are ignored (listed in ``ignoredExtensions``).
public struct PublicKeyCredentialRequestOptionsJSON: Sendable, Hashable {
    /// The challenge bytes (base64url in JSON).
    public var challenge: [UInt8]
    /// Milliseconds, as the RP asked; `nil` if absent.
    public var timeout: UInt32?
    /// The RP ID; `nil` means "the origin's host".
    public var rpId: String?
    /// Empty means "any discoverable credential for this RP".
    public var allowCredentials: [PublicKeyCredentialDescriptorJSON]
    /// `required`, `preferred` (the default) or `discouraged`.
    public var userVerification: UserVerificationRequirement
    /// Hints for the client's UI, in order (unknown values dropped).
    public var hints: [PublicKeyCredentialHint]
    /// The extensions this client processes.
    public var extensions: AuthenticationExtensionInputs
    /// Other extension identifiers found in `extensions`, not processed; callers may warn about them.
    public var ignoredExtensions: [String]

    /// Creates the value from its members; the defaults are the WebAuthn defaults.
    public init(
        challenge: [UInt8],
        timeout: UInt32? = nil,
        rpId: String? = nil,
        allowCredentials: [PublicKeyCredentialDescriptorJSON] = [],
        userVerification: UserVerificationRequirement = .preferred,
        hints: [PublicKeyCredentialHint] = [],
        extensions: AuthenticationExtensionInputs = .init(),
        ignoredExtensions: [String] = []
    ) {
        self.challenge = challenge
        self.timeout = timeout
        self.rpId = rpId
        self.allowCredentials = allowCredentials
        self.userVerification = userVerification
        self.hints = hints
        self.extensions = extensions
        self.ignoredExtensions = ignoredExtensions
    }

    /// Parses the JSON form, bare or wrapped as `{"publicKey": {…}}`.
    public init(json: Data) throws(WebAuthnOptionsError) {
        self = try WebAuthnJSONDecoding.decode(Self.self, from: json)
    }
}

extension PublicKeyCredentialRequestOptionsJSON: Decodable {
    private enum CodingKeys: String, CodingKey {
        case challenge, timeout, rpId, allowCredentials, userVerification, hints, extensions
    }

    /// Decodes the JSON form, with the checks browsers make.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        challenge = try container.decodeBase64URL(forKey: .challenge)
        timeout = try container.decodeUnsignedLongIfPresent(forKey: .timeout)
        rpId = try container.decodeIfPresent(String.self, forKey: .rpId)
        allowCredentials =
            try (container.decodeIfPresent([PublicKeyCredentialDescriptorJSON].self, forKey: .allowCredentials) ?? [])
            .publicKeyOnly
        userVerification =
            try container.decodeLenientEnum(UserVerificationRequirement.self, forKey: .userVerification) ?? .preferred
        hints = try container.decodeLenientEnumArray(PublicKeyCredentialHint.self, forKey: .hints)
        extensions = try container.decodeIfPresent(AuthenticationExtensionInputs.self, forKey: .extensions) ?? .init()
        try extensions.check(allowCredentials: allowCredentials)
        ignoredExtensions = try container.decodeMemberNames(forKey: .extensions)
            .filter { !AuthenticationExtensionInputs.processed.contains($0) }
    }
}
