import HybridCore

/// The authenticatorMakeCredential response map (CTAP 2.1 §6.1): 1 fmt, 2 authData, 3 attStmt,
/// 4 epAtt, 5 largeBlobKey, 6 unsignedExtensionOutputs.
public struct MakeCredentialResponse: Hashable, Sendable {
    /// The attestation statement format, e.g. `"none"` or `"packed"`.
    public var format: String
    /// Key 2: the authenticator data, with the new credential.
    public var authenticatorData: AuthenticatorData
    /// The attestation statement map (`{}` for `"none"`).
    public var attestationStatement: CBORValue
    /// Key 4: whether enterprise attestation was returned.
    public var enterpriseAttestation: Bool?
    /// Key 5: the credential's largeBlobKey.
    public var largeBlobKey: [UInt8]?
    /// Key 6: unsigned extension outputs.
    public var unsignedExtensionOutputs: CBORValue?

    /// A response from its fields; `nil` leaves a key out.
    public init(
        format: String, authenticatorData: AuthenticatorData, attestationStatement: CBORValue,
        enterpriseAttestation: Bool? = nil, largeBlobKey: [UInt8]? = nil, unsignedExtensionOutputs: CBORValue? = nil
    ) {
        self.format = format
        self.authenticatorData = authenticatorData
        self.attestationStatement = attestationStatement
        self.enterpriseAttestation = enterpriseAttestation
        self.largeBlobKey = largeBlobKey
        self.unsignedExtensionOutputs = unsignedExtensionOutputs
    }

    /// The same values as a WebAuthn attestation object.
    public init(_ attestationObject: AttestationObject) {
        self.init(
            format: attestationObject.format, authenticatorData: attestationObject.authenticatorData,
            attestationStatement: attestationObject.attestationStatement)
    }

    /// The response map.
    package var cbor: CBORValue {
        var entries: [CBORMapEntry] = [
            CBORMapEntry(1, .text(format)),
            CBORMapEntry(2, .bytes(authenticatorData.encoded)),
            CBORMapEntry(3, attestationStatement),
        ]
        entries.append(4, enterpriseAttestation.map(CBORValue.bool))
        entries.append(5, largeBlobKey.map(CBORValue.bytes))
        entries.append(6, unsignedExtensionOutputs)
        return .map(entries)
    }

    /// Status `00` followed by the canonical response map.
    public var encodedResponse: [UInt8] { CTAPResponse.encode(status: .ok, body: cbor) }

    /// Parses the map strictly: keys 1–3 are required, attStmt and unsignedExtensionOutputs are
    /// maps, authData parses strictly (``AuthenticatorData/init(bytes:)``).
    package init(cbor: CBORValue) throws(CTAPError) {
        let reader = try CTAPMapReader(cbor, path: "makeCredentialResponse")
        let format = try reader.requiredText(1, "fmt")
        let authenticatorData = try AuthenticatorData(bytes: try reader.requiredBytes(2, "authData"))
        let statement = try reader.requiredMap(3, "attStmt").value
        self.init(
            format: format, authenticatorData: authenticatorData, attestationStatement: statement,
            enterpriseAttestation: try reader.bool(4, "epAtt"), largeBlobKey: try reader.bytes(5, "largeBlobKey"),
            unsignedExtensionOutputs: try reader.map(6, "unsignedExtensionOutputs")?.value
        )
    }

    /// Parses a whole response: status `00`, then the map.
    public init(responseBytes: some Collection<UInt8>) throws(CTAPError) {
        try self.init(cbor: try CTAPResponse.successBody(responseBytes))
    }
}
