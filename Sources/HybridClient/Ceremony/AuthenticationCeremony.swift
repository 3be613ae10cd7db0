import HybridCTAP
import HybridCore

/// One `navigator.credentials.get()` call as a browser runs it over hybrid: the checked RP ID, the
/// client data, the single CTAP2 getAssertion to send (no silent preflight) and the mapping of the
/// phone's answer to ``AuthenticationResponseJSON``. Sans-IO: no transport, no printing.
public struct AuthenticationCeremony: Sendable, Hashable {
    /// The options as the site gave them.
    public let options: PublicKeyCredentialRequestOptionsJSON
    /// The calling origin.
    public let origin: WebOrigin
    /// `rpId`, or the origin's host, after `RelyingPartyIDCheck`.
    public let rpID: String
    /// The client data this ceremony sends (hashed into the request).
    package let clientData: ClientData

    /// Checks the RP ID against the origin and builds the client data.
    public init(options: PublicKeyCredentialRequestOptionsJSON, origin: WebOrigin) throws(OriginError) {
        self.options = options
        self.origin = origin
        self.rpID = try RelyingPartyIDCheck.effectiveRPID(requested: options.rpId, origin: origin)
        self.clientData = ClientData(ceremony: .get, challenge: options.challenge, origin: origin)
    }

    /// The authenticatorGetAssertion request (send ``GetAssertionRequest/encoded``). The whole allow
    /// list goes in one request, without transports.
    ///
    /// Extensions are mapped as Chromium maps them for this phone (see ``AuthenticationExtensionPlan``).
    ///
    /// - Parameter authenticatorInfo: The phone's getInfo, used to resolve `preferred` user
    ///   verification and extension support; `nil` assumes a phone (uv supported) that supports no
    ///   extension.
    @_spi(Fuzzing) public func getAssertionRequest(authenticatorInfo: AuthenticatorGetInfoResponse? = nil)
        -> GetAssertionRequest
    {
        let allowList = CTAPOptionMapping.descriptors(options.allowCredentials)
        let plan = AuthenticationExtensionPlan(options: options, authenticatorInfo: authenticatorInfo)
        var requirement = CTAPOptionMapping.assertionRequirement(
            options.userVerification, allowListIsEmpty: allowList == nil)
        if plan.upgradesUserVerification(options) { requirement = requirement.atLeastPreferred }
        return GetAssertionRequest(
            rpID: rpID,
            clientDataHash: clientData.hash,
            allowList: allowList,
            extensions: plan.ctapExtensions,
            options: CTAPOptionMapping.options(
                residentKey: nil,
                userVerification: CTAPOptionMapping.userVerification(requirement, authenticatorInfo: authenticatorInfo)
            )
        )
    }

    /// Checks the phone's answer and turns it into the JSON a relying party expects.
    ///
    /// Checks, as Chromium's `ResponseValid` does: authenticator data names this RP ID, carries no
    /// attested credential data and no extension output (authenticator data or unsigned, key 8) that
    /// was not requested; the credential is
    /// known (from the response, or the allow list when it has exactly one entry) and is in a
    /// non-empty allow list; a discoverable sign-in (empty allow list), or an answer counting several
    /// credentials, returns the user; user names come only with UV.
    ///
    /// - Parameter authenticatorInfo: The same getInfo the request was built with.
    package func response(
        to assertion: GetAssertionResponse,
        authenticatorInfo: AuthenticatorGetInfoResponse? = nil
    ) throws(ResponseMappingError) -> AuthenticationResponseJSON {
        let authenticatorData = assertion.authenticatorData
        guard authenticatorData.rpIDHash == AuthenticatorData.rpIDHash(rpID) else { throw .rpIDHashMismatch }
        guard authenticatorData.attestedCredentialData == nil else { throw .attestedCredentialDataInAssertion }
        let extensionResults = try AuthenticationExtensionPlan(options: options, authenticatorInfo: authenticatorInfo)
            .results(for: assertion)
        if let user = assertion.user, user.name != nil || user.displayName != nil,
            !authenticatorData.flags.contains(.userVerified)
        {
            throw .userDetailsWithoutVerification
        }
        if (assertion.numberOfCredentials ?? 0) > 1, assertion.user == nil { throw .ambiguousAccount }
        let allowed = options.allowCredentials.filter { $0.type == PublicKeyCredentialDescriptor.publicKeyType }
        let credentialID: [UInt8]
        if let returned = assertion.credential?.id {
            credentialID = returned
        } else if allowed.count == 1 {
            credentialID = allowed[0].id
        } else {
            throw .missingCredentialID
        }
        if !allowed.isEmpty, !allowed.contains(where: { $0.id == credentialID }) { throw .credentialNotAllowed }
        let userHandle = assertion.user?.id
        if allowed.isEmpty, userHandle == nil { throw .missingUserHandle }
        return AuthenticationResponseJSON(
            credentialID: credentialID,
            response: .init(
                clientDataJSON: Base64URL.encode(clientData.json),
                authenticatorData: Base64URL.encode(assertion.authenticatorData.encoded),
                signature: Base64URL.encode(assertion.signature),
                userHandle: userHandle.map { Base64URL.encode($0) }
            ),
            clientExtensionResults: extensionResults
        )
    }
}
