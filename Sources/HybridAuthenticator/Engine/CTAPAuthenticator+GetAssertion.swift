import HybridCore

extension CTAPAuthenticator {
    /// authenticatorGetAssertion (CTAP 2.1 §6.2.2): the allowList's passkeys for the RP, or its
    /// discoverable passkeys when the list is empty; the user picks one when there are several
    /// (that choice is the presence test) or confirms the single one; the counter is incremented
    /// and stored before signing. The response never announces more assertions
    /// (numberOfCredentials omitted) and sets userSelected when the user chose or confirmed.
    func getAssertion(_ request: GetAssertionRequest) async throws(CTAPFailure) -> CBORValue {
        try rejectPinUvAuth(param: request.pinUvAuthParam, protocol: request.pinUvAuthProtocol)
        let options = request.options ?? CTAPRequestOptions()
        guard options.residentKey == nil else { throw CTAPFailure(.unsupportedOption) }
        let verify = options.effectiveUserVerification
        try requireUserVerification(verify)

        let stored = try await storedPasskeys(forRPID: request.rpID)
        let candidates: [Passkey]
        if let allowList = request.allowList, !allowList.isEmpty {
            let allowed = Set(allowList.filter(\.isPublicKey).map(\.id))
            candidates = stored.filter { allowed.contains($0.credentialID) }
        } else {
            candidates = stored.filter(\.metadata.isDiscoverable)
        }
        guard let first = candidates.first else { throw CTAPFailure(.noCredentials) }

        var chosen = first
        let present = options.effectiveUserPresence
        if present {
            if candidates.count > 1 {
                let accounts = candidates.map {
                    AccountChoice(userName: $0.metadata.userName, userDisplayName: $0.metadata.userDisplayName, createdAt: $0.metadata.createdAt)
                }
                guard let index = await userInteraction.chooseAccount(rpID: request.rpID, accounts: accounts),
                    candidates.indices.contains(index)
                else { throw CTAPFailure(.operationDenied) }
                chosen = candidates[index]
            } else {
                guard await userInteraction.confirm(operation: .getAssertion, rpID: request.rpID, userName: first.metadata.accountLabel) else {
                    throw CTAPFailure(.operationDenied)
                }
            }
        }
        if verify, await !userInteraction.verifyUser() { throw CTAPFailure(.operationDenied) }
        try ensureNotCancelled()

        let signCount: UInt32
        do { signCount = try await store.incrementSignCount(credentialID: chosen.credentialID) } catch {
            logger.error("cannot store the signature counter", metadata: ["store.error": "\(error)"])
            throw CTAPFailure(.other)
        }
        var flags: AuthenticatorData.Flags = []
        if present { flags.insert(.userPresent) }
        if verify { flags.insert(.userVerified) }
        let authenticatorData = AuthenticatorData(rpIDHash: AuthenticatorData.rpIDHash(request.rpID), flags: flags, signCount: signCount)
        let signature = try sign(authenticatorData, request.clientDataHash, with: chosen.privateKey)
        let metadata = chosen.metadata
        // Names only after user verification (CTAP 2.1 §6.2.2, "user" member).
        let user = PublicKeyCredentialUserEntity(
            id: metadata.userHandle, name: verify ? metadata.userName : nil, displayName: verify ? metadata.userDisplayName : nil)
        logger.info("assertion made", metadata: ["ctap.rp": "\(request.rpID)", "ctap.signCount": "\(signCount)"])
        return GetAssertionResponse(
            credential: PublicKeyCredentialDescriptor(id: metadata.credentialID), authenticatorData: authenticatorData,
            signature: signature, user: user, userSelected: present ? true : nil
        ).cbor
    }
}
