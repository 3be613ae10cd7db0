import HybridCore

/// The authenticatorGetAssertion response map (CTAP 2.1 §6.2): 1 credential, 2 authData,
/// 3 signature, 4 user, 5 numberOfCredentials, 6 userSelected, 7 largeBlobKey,
/// 8 unsignedExtensionOutputs.
public struct GetAssertionResponse: Hashable, Sendable {
    /// The credential used. Optional in CTAP when the allowList had exactly one entry.
    public var credential: PublicKeyCredentialDescriptor?
    /// Key 2: the authenticator data that was signed.
    public var authenticatorData: AuthenticatorData
    /// ES256: a DER ECDSA signature over authData ‖ clientDataHash.
    public var signature: [UInt8]
    /// Key 4: the user of a discoverable credential.
    public var user: PublicKeyCredentialUserEntity?
    /// Key 5: how many credentials matched (first response only).
    public var numberOfCredentials: UInt64?
    /// Key 6: whether the user chose this credential on the authenticator.
    public var userSelected: Bool?
    /// Key 7: the credential's largeBlobKey.
    public var largeBlobKey: [UInt8]?
    /// Key 8: unsigned extension outputs.
    public var unsignedExtensionOutputs: CBORValue?

    /// A response from its fields; `nil` leaves a key out.
    public init(
        credential: PublicKeyCredentialDescriptor?, authenticatorData: AuthenticatorData, signature: [UInt8],
        user: PublicKeyCredentialUserEntity? = nil, numberOfCredentials: UInt64? = nil, userSelected: Bool? = nil,
        largeBlobKey: [UInt8]? = nil, unsignedExtensionOutputs: CBORValue? = nil
    ) {
        self.credential = credential
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.user = user
        self.numberOfCredentials = numberOfCredentials
        self.userSelected = userSelected
        self.largeBlobKey = largeBlobKey
        self.unsignedExtensionOutputs = unsignedExtensionOutputs
    }

    /// The response map.
    package var cbor: CBORValue {
        var entries: [CBORMapEntry] = []
        entries.append(1, credential?.cbor)
        entries.append(2, .bytes(authenticatorData.encoded))
        entries.append(3, .bytes(signature))
        entries.append(4, user?.cbor)
        entries.append(5, numberOfCredentials.map { .int(Int64(clamping: $0)) })
        entries.append(6, userSelected.map(CBORValue.bool))
        entries.append(7, largeBlobKey.map(CBORValue.bytes))
        entries.append(8, unsignedExtensionOutputs)
        return .map(entries)
    }

    /// Status `00` followed by the canonical response map.
    public var encodedResponse: [UInt8] { CTAPResponse.encode(status: .ok, body: cbor) }

    /// Parses the map strictly: authData and signature are required; every other known key
    /// must have its type.
    package init(cbor: CBORValue) throws(CTAPError) {
        let reader = try CTAPMapReader(cbor, path: "getAssertionResponse")
        let credential = try reader.value(1).map { (value) throws(CTAPError) in
            try PublicKeyCredentialDescriptor(cbor: value, path: reader.fieldPath("credential"))
        }
        let authenticatorData = try AuthenticatorData(bytes: try reader.requiredBytes(2, "authData"))
        let signature = try reader.requiredBytes(3, "signature")
        let user = try reader.value(4).map { (value) throws(CTAPError) in
            try PublicKeyCredentialUserEntity(cbor: value, path: reader.fieldPath("user"))
        }
        self.init(
            credential: credential, authenticatorData: authenticatorData, signature: signature, user: user,
            numberOfCredentials: try reader.unsigned(5, "numberOfCredentials", as: UInt64.self),
            userSelected: try reader.bool(6, "userSelected"), largeBlobKey: try reader.bytes(7, "largeBlobKey"),
            unsignedExtensionOutputs: try reader.map(8, "unsignedExtensionOutputs")?.value
        )
    }

    /// Parses a whole response: status `00`, then the map.
    public init(responseBytes: some Collection<UInt8>) throws(CTAPError) {
        try self.init(cbor: try CTAPResponse.successBody(responseBytes))
    }
}
