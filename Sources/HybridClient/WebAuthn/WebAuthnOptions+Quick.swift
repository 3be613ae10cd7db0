/// Builders behind the CLI's short flags (`--rp-id`, `--user`, `--challenge`), for use without a JSON file.

extension PublicKeyCredentialCreationOptionsJSON {
    /// Creation options for a quick registration: RP name = RP ID, display name = user name,
    /// ES256 then RS256, no exclude list, no attestation.
    /// - Parameters:
    ///   - rpID: The relying party ID, e.g. `example.com`.
    ///   - userName: Used as both `user.name` and `user.displayName`.
    ///   - userID: The user handle (1…64 bytes); the caller chooses it (e.g. random bytes).
    ///   - challenge: The challenge bytes.
    ///   - residentKey: Whether to ask for a discoverable credential.
    ///   - userVerification: The user-verification requirement.
    ///   - timeout: Milliseconds, or `nil`.
    public static func quick(
        rpID: String,
        userName: String,
        userID: [UInt8],
        challenge: [UInt8],
        residentKey: ResidentKeyRequirement = .required,
        userVerification: UserVerificationRequirement = .preferred,
        timeout: UInt32? = nil
    ) throws(WebAuthnOptionsError) -> Self {
        guard (1...64).contains(userID.count) else { throw .userIDLength(userID.count) }
        return Self(
            rp: .init(id: rpID, name: rpID),
            user: .init(id: userID, name: userName, displayName: userName),
            challenge: challenge,
            timeout: timeout,
            authenticatorSelection: .init(
                residentKey: residentKey,
                requireResidentKey: residentKey == .required,
                userVerification: userVerification
            )
        )
    }
}

extension PublicKeyCredentialRequestOptionsJSON {
    /// Request options for a quick sign-in.
    /// - Parameters:
    ///   - rpID: The relying party ID.
    ///   - challenge: The challenge bytes.
    ///   - allowCredentialIDs: Credential IDs to allow; empty asks for a discoverable credential.
    ///   - userVerification: The user-verification requirement.
    ///   - timeout: Milliseconds, or `nil`.
    public static func quick(
        rpID: String,
        challenge: [UInt8],
        allowCredentialIDs: [[UInt8]] = [],
        userVerification: UserVerificationRequirement = .preferred,
        timeout: UInt32? = nil
    ) -> Self {
        Self(
            challenge: challenge,
            timeout: timeout,
            rpId: rpID,
            allowCredentials: allowCredentialIDs.map { PublicKeyCredentialDescriptorJSON(id: $0) },
            userVerification: userVerification
        )
    }
}
