import HybridCTAP
import HybridCore

extension CTAPAuthenticator {
    /// authenticatorGetAssertion (CTAP 2.1 §6.2.2): the allowList's passkeys for the RP, or its
    /// discoverable passkeys when the list is empty; the user picks one when there are several
    /// (that choice is the presence test) or confirms the single one; the counter follows
    /// ``nextSignCount(of:)``, stored before signing. The response never announces more assertions
    /// (numberOfCredentials omitted) and sets userSelected when the user chose or confirmed a
    /// discoverable passkey; never for an allow list (CTAP 2.1 §6.2.2: userSelected answers an
    /// empty allowList; Chromium fails the whole request with "Assertion response has userSelected
    /// for non-empty allowList", seen with real Chromium 156 in ci/run-chromium-interop.sh).
    ///
    /// credProtect (CTAP 2.1 §12.1): without user verification a level-3 passkey is never found
    /// and a level-2 one only through the allow list. prf: `{"eval": salts, "evalByCredential":
    /// {id: salts}}`; the chosen passkey's own entry, else `eval`, is evaluated under its secret
    /// when the user was verified (prf is the UV-bound PRF, WebAuthn L3 §10.1.4), and returned in
    /// the unsigned extension outputs (response key 8): `{"prf": {"results": {"first", ? "second"}}}`.
    ///
    /// A silent request (`up` = false) is refused with CTAP2_ERR_UNSUPPORTED_OPTION before any
    /// passkey is looked up. This engine is a phone: over hybrid a client gets one request per
    /// QR code, and a signature nobody approved would let a malicious client enumerate accounts
    /// and collect assertions. Chromium never sends `up` = false to a phone, Android shows UI for
    /// it anyway (protocol.md §8.1), and prompting would only produce a signature whose UP flag
    /// says nobody was asked; refusing is the one honest answer.
    func getAssertion(_ request: GetAssertionRequest) async throws(CTAPFailure) -> CBORValue {
        try rejectPinUvAuth(param: request.pinUvAuthParam, protocol: request.pinUvAuthProtocol)
        let extensions: GetAssertionExtensionInputs
        do { extensions = try GetAssertionExtensionInputs(request.extensions) } catch {
            throw CTAPFailure(error.statusCode)
        }
        let options = request.options ?? CTAPRequestOptions()
        guard options.residentKey == nil else { throw CTAPFailure(.unsupportedOption) }
        guard options.effectiveUserPresence else { throw CTAPFailure(.unsupportedOption) }
        let verify = options.effectiveUserVerification
        try requireUserVerification(verify)

        let stored = try await storedPasskeys(forRPID: request.rpID)
        let listed: [Passkey]
        let discoverable: Bool
        if let allowList = request.allowList, !allowList.isEmpty {
            let allowed = Set(allowList.filter(\.isPublicKey).map(\.id))
            (listed, discoverable) = (stored.filter { allowed.contains($0.credentialID) }, false)
        } else {
            (listed, discoverable) = (stored.filter(\.metadata.isDiscoverable), true)
        }
        let candidates = listed.filter {
            $0.metadata.effectiveCredentialProtection.isFound(verified: verify, discoverable: discoverable)
        }
        guard let first = candidates.first else { throw CTAPFailure(.noCredentials) }

        var chosen = first
        if candidates.count > 1 {
            let accounts = candidates.map {
                AccountChoice(
                    userName: $0.metadata.userName, userDisplayName: $0.metadata.userDisplayName,
                    createdAt: $0.metadata.createdAt)
            }
            guard let index = await userInteraction.chooseAccount(rpID: request.rpID, accounts: accounts),
                candidates.indices.contains(index)
            else { throw CTAPFailure(.operationDenied) }
            chosen = candidates[index]
        } else {
            guard
                await userInteraction.confirm(
                    operation: .getAssertion, rpID: request.rpID, userName: first.metadata.accountLabel)
            else {
                throw CTAPFailure(.operationDenied)
            }
        }
        if verify, await !userInteraction.verifyUser() { throw CTAPFailure(.operationDenied) }
        try ensureNotCancelled()

        let signCount = try await nextSignCount(of: chosen)
        var flags: AuthenticatorData.Flags = [.userPresent]
        if verify { flags.insert(.userVerified) }
        let authenticatorData = AuthenticatorData(
            rpIDHash: AuthenticatorData.rpIDHash(request.rpID), flags: flags, signCount: signCount)
        let signature = try sign(authenticatorData, request.clientDataHash, with: chosen.privateKey)
        let metadata = chosen.metadata
        // Names only after user verification (CTAP 2.1 §6.2.2, "user" member).
        let user = PublicKeyCredentialUserEntity(
            id: metadata.userHandle, name: verify ? metadata.userName : nil,
            displayName: verify ? metadata.userDisplayName : nil)
        logger.info("assertion made", metadata: ["ctap.rp": "\(request.rpID)", "ctap.signCount": "\(signCount)"])
        var unsignedOutputs: CBORValue?
        if verify, let salts = extensions.prfSalts(forCredential: chosen.credentialID), let secret = chosen.prfSecret {
            unsignedOutputs = .map(["prf": .map(["results": salts.results(secret: secret)])])
        }
        return GetAssertionResponse(
            credential: PublicKeyCredentialDescriptor(id: metadata.credentialID), authenticatorData: authenticatorData,
            signature: signature, user: user, userSelected: discoverable ? true : nil,
            unsignedExtensionOutputs: unsignedOutputs
        ).cbor
    }

    /// The signature counter of this assertion (WebAuthn L3 §6.1.1). A passkey whose counter is 0
    /// keeps 0 and is never incremented, as synced passkeys do: passkeys made here start at 0, and
    /// imported ones must (CXF 1.0 "Passkey": an importer sets 0 and never increments), so that a
    /// passkey can move between authenticators without tripping a relying party's clone
    /// detection. A passkey whose counter is already above 0 (made by an earlier version of this
    /// program, which counted) goes on counting, since going back to 0 would look like a clone;
    /// such a passkey is not exportable.
    func nextSignCount(of passkey: Passkey) async throws(CTAPFailure) -> UInt32 {
        guard passkey.metadata.signCount != 0 else { return 0 }
        do { return try await store.incrementSignCount(credentialID: passkey.credentialID) } catch {
            logger.error("cannot store the signature counter", metadata: ["store.error": "\(error)"])
            throw CTAPFailure(.other)
        }
    }
}
