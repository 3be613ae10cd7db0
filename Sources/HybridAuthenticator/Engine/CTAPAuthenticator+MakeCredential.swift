import Crypto
import HybridCTAP
import HybridCore

extension CTAPAuthenticator {
    /// authenticatorMakeCredential, in the order of CTAP 2.1 §6.1.2: parameters and options,
    /// exclude list (user presence, then 0x19), user presence and verification, then a new ES256
    /// passkey stored durably before the response leaves.
    ///
    /// Extensions: every new passkey gets a random prf secret. `"prf": {}` or
    /// `{"eval": {"first", ? "second"}}` answers, as Chromium's phone does, in the unsigned extension
    /// outputs (response key 6): `{"prf": {"enabled": true, ? "results": {...}}}`, with results only
    /// for `eval` and a verified user. `"credProtect": 1–3` is stored and echoed in the
    /// authenticator data's extensions, `{"credProtect": level}`.
    func makeCredential(_ request: MakeCredentialRequest) async throws(CTAPFailure) -> CBORValue {
        try rejectPinUvAuth(param: request.pinUvAuthParam, protocol: request.pinUvAuthProtocol)
        let extensions: MakeCredentialExtensionInputs
        do { extensions = try MakeCredentialExtensionInputs(request.extensions) } catch {
            throw CTAPFailure(error.statusCode)
        }
        guard request.enterpriseAttestation == nil else { throw CTAPFailure(.invalidParameter) }
        guard
            request.publicKeyCredentialParameters.contains(where: {
                $0.type == PublicKeyCredentialDescriptor.publicKeyType && $0.algorithm == COSEAlgorithm.es256
            })
        else { throw CTAPFailure(.unsupportedAlgorithm) }
        let options = request.options ?? CTAPRequestOptions()
        guard options.effectiveUserPresence else { throw CTAPFailure(.invalidOption) }
        let verify = options.effectiveUserVerification
        try requireUserVerification(verify)

        let existing = try await storedPasskeys(forRPID: request.rp.id)
        let excluded = Set((request.excludeList ?? []).filter(\.isPublicKey).map(\.id))
        // CTAP 2.1 §6.1.2 step 7: a level-3 passkey is not revealed to a request without UV.
        if let match = existing.first(where: {
            excluded.contains($0.credentialID)
                && $0.metadata.effectiveCredentialProtection.isFound(verified: verify, discoverable: false)
        }) {
            let acknowledged = await userInteraction.confirm(
                operation: .excludedCredential, rpID: request.rp.id, userName: match.metadata.accountLabel)
            throw CTAPFailure(acknowledged ? .credentialExcluded : .operationDenied)
        }

        let userName = request.user.name.nonEmpty ?? request.user.displayName.nonEmpty
        guard await userInteraction.confirm(operation: .makeCredential, rpID: request.rp.id, userName: userName) else {
            throw CTAPFailure(.operationDenied)
        }
        if verify, await !userInteraction.verifyUser() { throw CTAPFailure(.operationDenied) }
        try ensureNotCancelled()

        let privateKey = try makePrivateKey()
        let passkey = Passkey(
            metadata: PasskeyMetadata(
                credentialID: environment.random.bytes(Passkey.credentialIDLength), rpID: request.rp.id,
                rpName: request.rp.name, userHandle: request.user.id, userName: request.user.name,
                userDisplayName: request.user.displayName, signCount: 0, createdAt: environment.now(),
                isDiscoverable: options.effectiveResidentKey, credentialProtection: extensions.credentialProtection),
            privateKey: privateKey, prfSecret: environment.random.bytes(Passkey.prfSecretLength))
        let authenticatorData = AuthenticatorData(
            rpIDHash: AuthenticatorData.rpIDHash(request.rp.id),
            flags: verify ? [.userPresent, .userVerified] : [.userPresent],
            signCount: 0,
            attestedCredentialData: AttestedCredentialData(
                aaguid: configuration.aaguid, credentialID: passkey.credentialID,
                credentialPublicKey: COSEKey(privateKey.publicKey).cbor),
            extensions: extensions.credentialProtection.map { .map(["credProtect": .int(Int64($0.rawValue))]) })
        let attestation: AttestationObject
        switch configuration.attestation {
        case .none:
            attestation = .none(authenticatorData)
        case .packedSelf:
            attestation = .packedSelf(
                authenticatorData, signature: try sign(authenticatorData, request.clientDataHash, with: privateKey))
        }
        do { try await store.add(passkey) } catch {
            logger.error("cannot store the new passkey", metadata: ["store.error": "\(error)"])
            throw CTAPFailure(.other)
        }
        logger.info(
            "passkey created",
            metadata: ["ctap.rp": "\(request.rp.id)", "ctap.discoverable": "\(options.effectiveResidentKey)"])
        var response = MakeCredentialResponse(attestation)
        if extensions.prfRequested {
            var prf = [CBORMapEntry("enabled", true)]
            if verify, let eval = extensions.prfEval, let secret = passkey.prfSecret {
                prf.append(CBORMapEntry("results", eval.results(secret: secret)))
            }
            response.unsignedExtensionOutputs = .map(["prf": .map(prf)])
        }
        return response.cbor
    }

    /// The store's passkeys for `rpID`; a store failure answers CTAP1_ERR_OTHER.
    func storedPasskeys(forRPID rpID: String) async throws(CTAPFailure) -> [Passkey] {
        do { return try await store.passkeys(forRPID: rpID) } catch {
            logger.error("cannot read the passkey store", metadata: ["store.error": "\(error)"])
            throw CTAPFailure(.other)
        }
    }

    /// The DER ES256 signature over authData ‖ clientDataHash (WebAuthn §6.3.3 step 11).
    func sign(_ authenticatorData: AuthenticatorData, _ clientDataHash: [UInt8], with key: P256.Signing.PrivateKey)
        throws(CTAPFailure) -> [UInt8]
    {
        do { return Array(try key.signature(for: authenticatorData.encoded + clientDataHash).derRepresentation) } catch
        {
            throw CTAPFailure(.other)
        }
    }
}
