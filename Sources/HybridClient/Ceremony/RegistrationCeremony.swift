import HybridCTAP
import HybridCore

/// One `navigator.credentials.create()` call as a browser runs it over hybrid: the checked RP ID,
/// the client data, the CTAP2 request to send and the mapping of the phone's answer to
/// ``RegistrationResponseJSON``. Sans-IO: no transport, no printing.
public struct RegistrationCeremony: Sendable, Hashable {
    /// The options as the site gave them.
    public let options: PublicKeyCredentialCreationOptionsJSON
    /// The calling origin.
    public let origin: WebOrigin
    /// `rp.id`, or the origin's host, after `RelyingPartyIDCheck`.
    public let rpID: String
    /// The client data this ceremony sends (hashed into the request).
    package let clientData: ClientData

    /// Checks the RP ID against the origin and builds the client data.
    public init(options: PublicKeyCredentialCreationOptionsJSON, origin: WebOrigin) throws(OriginError) {
        self.options = options
        self.origin = origin
        self.rpID = try RelyingPartyIDCheck.effectiveRPID(requested: options.rp.id, origin: origin)
        self.clientData = ClientData(ceremony: .create, challenge: options.challenge, origin: origin)
    }

    /// The authenticatorMakeCredential request (send ``MakeCredentialRequest/encoded``), with the
    /// extensions mapped as Chromium maps them for this phone (see ``RegistrationExtensionPlan``).
    ///
    /// - Parameter authenticatorInfo: The phone's getInfo (post-handshake key 1), used to resolve
    ///   `preferred` requirements and extension support; `nil` assumes a phone (rk and uv supported)
    ///   that supports no extension.
    /// - Throws: ``ClientExtensionError`` when the site requires what the phone cannot do (an enforced
    ///   credential protection policy, required large blob support).
    @_spi(Fuzzing) public func makeCredentialRequest(
        authenticatorInfo: AuthenticatorGetInfoResponse? = nil
    ) throws(ClientExtensionError) -> MakeCredentialRequest {
        let selection = options.authenticatorSelection
        let residentKey = CTAPOptionMapping.residentKey(
            selection.effectiveResidentKey, authenticatorInfo: authenticatorInfo)
        let plan = RegistrationExtensionPlan(
            options: options, residentKey: residentKey, authenticatorInfo: authenticatorInfo)
        if let refusal = plan.refusal { throw refusal }
        var userVerification = CTAPOptionMapping.registrationRequirement(
            selection.userVerification, residentKey: residentKey)
        if plan.upgradesUserVerification { userVerification = userVerification.atLeastPreferred }
        return MakeCredentialRequest(
            clientDataHash: clientData.hash,
            rp: PublicKeyCredentialRPEntity(id: rpID, name: options.rp.name),
            user: PublicKeyCredentialUserEntity(
                id: options.user.id,
                name: options.user.name,
                displayName: options.user.displayName
            ),
            publicKeyCredentialParameters: options.pubKeyCredParams.map {
                PublicKeyCredentialParameters(type: $0.type, algorithm: $0.alg)
            },
            excludeList: CTAPOptionMapping.descriptors(options.excludeCredentials),
            extensions: plan.ctapExtensions,
            options: CTAPOptionMapping.options(
                residentKey: residentKey,
                userVerification: CTAPOptionMapping.userVerification(
                    userVerification, authenticatorInfo: authenticatorInfo)
            )
        )
    }

    /// Checks the phone's answer and turns it into the JSON a relying party expects.
    ///
    /// Checks: authenticator data names this RP ID and carries a credential; extension outputs
    /// (authenticator data and unsigned, key 6) were requested and are well formed. Attestation follows
    /// WebAuthn L3 §5.1.3: with `attestation: "none"` the statement is replaced by `"none"` (self
    /// attestation, `packed` without `x5c` and a zero AAGUID, is kept as is).
    ///
    /// - Parameter authenticatorInfo: The same getInfo the request was built with.
    package func response(
        to makeCredential: MakeCredentialResponse,
        authenticatorInfo: AuthenticatorGetInfoResponse? = nil
    ) throws(ResponseMappingError) -> RegistrationResponseJSON {
        let authenticatorData = makeCredential.authenticatorData
        guard authenticatorData.rpIDHash == AuthenticatorData.rpIDHash(rpID) else { throw .rpIDHashMismatch }
        guard let credential = authenticatorData.attestedCredentialData else { throw .missingAttestedCredentialData }
        let residentKey = CTAPOptionMapping.residentKey(
            options.authenticatorSelection.effectiveResidentKey, authenticatorInfo: authenticatorInfo)
        let extensionResults = try RegistrationExtensionPlan(
            options: options, residentKey: residentKey, authenticatorInfo: authenticatorInfo
        ).results(for: makeCredential)
        var attestation = AttestationObject(makeCredential)
        if options.attestation == .none, !Self.isSelfAttestation(attestation) {
            attestation = .none(authenticatorData)
        }
        let key = CredentialPublicKeyInfo(coseKey: credential.credentialPublicKey)
        return RegistrationResponseJSON(
            credentialID: credential.credentialID,
            response: .init(
                clientDataJSON: Base64URL.encode(clientData.json),
                attestationObject: Base64URL.encode(attestation.encoded),
                authenticatorData: Base64URL.encode(authenticatorData.encoded),
                transports: ["hybrid"],
                publicKey: key.subjectPublicKeyInfo.map { Base64URL.encode($0) },
                publicKeyAlgorithm: key.algorithm
            ),
            clientExtensionResults: extensionResults
        )
    }

    private static func isSelfAttestation(_ attestation: AttestationObject) -> Bool {
        attestation.format == AttestationFormat.packed && attestation.attestationStatement[textKey: "x5c"] == nil
            && attestation.authenticatorData.attestedCredentialData?.aaguid.allSatisfy { $0 == 0 } == true
    }
}
