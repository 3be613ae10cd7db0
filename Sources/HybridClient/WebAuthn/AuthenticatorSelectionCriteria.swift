/// `AuthenticatorSelectionCriteria` (WebAuthn L3 §5.4.4), with the specification's defaults.
public struct AuthenticatorSelectionCriteria: Sendable, Hashable {
    /// `platform` or `cross-platform`; `nil` accepts either.
    public var authenticatorAttachment: AuthenticatorAttachment?
    /// `nil` when absent or unknown; see `effectiveResidentKey`.
    public var residentKey: ResidentKeyRequirement?
    /// The legacy WebAuthn Level 1 flag, used only when `residentKey` is absent.
    public var requireResidentKey: Bool
    /// `required`, `preferred` (the default) or `discouraged`.
    public var userVerification: UserVerificationRequirement

    /// Criteria; the defaults are the WebAuthn defaults.
    public init(
        authenticatorAttachment: AuthenticatorAttachment? = nil,
        residentKey: ResidentKeyRequirement? = nil,
        requireResidentKey: Bool = false,
        userVerification: UserVerificationRequirement = .preferred
    ) {
        self.authenticatorAttachment = authenticatorAttachment
        self.residentKey = residentKey
        self.requireResidentKey = requireResidentKey
        self.userVerification = userVerification
    }

    /// The resident-key requirement after WebAuthn L3 §5.4.4's rule: `residentKey` if present,
    /// else `required` if `requireResidentKey` is true, else `discouraged`.
    package var effectiveResidentKey: ResidentKeyRequirement {
        residentKey ?? (requireResidentKey ? .required : .discouraged)
    }
}

extension AuthenticatorSelectionCriteria: Decodable {
    private enum CodingKeys: String, CodingKey {
        case authenticatorAttachment, residentKey, requireResidentKey, userVerification
    }

    /// Decodes the JSON form, with the checks browsers make.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        authenticatorAttachment = try container.decodeLenientEnum(
            AuthenticatorAttachment.self,
            forKey: .authenticatorAttachment
        )
        residentKey = try container.decodeLenientEnum(ResidentKeyRequirement.self, forKey: .residentKey)
        requireResidentKey = try container.decodeIfPresent(Bool.self, forKey: .requireResidentKey) ?? false
        userVerification =
            try container.decodeLenientEnum(UserVerificationRequirement.self, forKey: .userVerification) ?? .preferred
    }
}
