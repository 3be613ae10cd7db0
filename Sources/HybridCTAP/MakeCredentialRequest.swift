import HybridCore

/// authenticatorMakeCredential (0x01) parameters (CTAP 2.1 §6.1).
///
/// Keys: 1 clientDataHash, 2 rp, 3 user, 4 pubKeyCredParams, 5 excludeList, 6 extensions,
/// 7 options, 8 pinUvAuthParam, 9 pinUvAuthProtocol, 10 enterpriseAttestation. Unknown keys
/// are ignored when parsing.
public struct MakeCredentialRequest: Hashable, Sendable {
    /// SHA-256 of the client data: 32 bytes.
    public var clientDataHash: [UInt8]
    /// Key 2: the relying party.
    public var rp: PublicKeyCredentialRPEntity
    /// Key 3: the user account.
    public var user: PublicKeyCredentialUserEntity
    /// Acceptable credential types and algorithms, most preferred first. Must not be empty.
    public var publicKeyCredentialParameters: [PublicKeyCredentialParameters]
    /// Credentials the account already has; `nil` when absent.
    public var excludeList: [PublicKeyCredentialDescriptor]?
    /// Extension inputs: a map with text keys, kept as given.
    public var extensions: CBORValue?
    /// Key 7: the `rk`, `up` and `uv` options.
    public var options: CTAPRequestOptions?
    /// Key 8: the PIN/UV auth parameter.
    public var pinUvAuthParam: [UInt8]?
    /// Key 9: the PIN/UV auth protocol version.
    public var pinUvAuthProtocol: UInt64?
    /// Key 10: the enterprise attestation level requested.
    public var enterpriseAttestation: UInt64?

    /// A request from its parameters; `nil` leaves a key out.
    public init(
        clientDataHash: [UInt8],
        rp: PublicKeyCredentialRPEntity,
        user: PublicKeyCredentialUserEntity,
        publicKeyCredentialParameters: [PublicKeyCredentialParameters],
        excludeList: [PublicKeyCredentialDescriptor]? = nil,
        extensions: CBORValue? = nil,
        options: CTAPRequestOptions? = nil,
        pinUvAuthParam: [UInt8]? = nil,
        pinUvAuthProtocol: UInt64? = nil,
        enterpriseAttestation: UInt64? = nil
    ) {
        self.clientDataHash = clientDataHash
        self.rp = rp
        self.user = user
        self.publicKeyCredentialParameters = publicKeyCredentialParameters
        self.excludeList = excludeList
        self.extensions = extensions
        self.options = options
        self.pinUvAuthParam = pinUvAuthParam
        self.pinUvAuthProtocol = pinUvAuthProtocol
        self.enterpriseAttestation = enterpriseAttestation
    }

    /// The parameter map.
    package var cbor: CBORValue {
        var entries: [CBORMapEntry] = [
            CBORMapEntry(1, .bytes(clientDataHash)),
            CBORMapEntry(2, rp.cbor),
            CBORMapEntry(3, user.cbor),
            CBORMapEntry(4, .array(publicKeyCredentialParameters.map(\.cbor))),
        ]
        entries.append(5, excludeList.map { .array($0.map(\.cbor)) })
        entries.append(6, extensions)
        entries.append(7, options.map(\.cbor))
        entries.append(8, pinUvAuthParam.map(CBORValue.bytes))
        entries.append(9, pinUvAuthProtocol.map { .int(Int64(clamping: $0)) })
        entries.append(10, enterpriseAttestation.map { .int(Int64(clamping: $0)) })
        return .map(entries)
    }

    /// Command byte 0x01 followed by the canonical parameter map.
    public var encoded: [UInt8] { [CTAPCommand.makeCredential.rawValue] + CBOREncoder.encode(cbor) }

    /// Parses the parameter map. Strict (what an authenticator serves): required keys 1–4,
    /// every known key of its type, clientDataHash 32 bytes, user id 1–64 bytes, extensions a map.
    /// Lenient (what a forwarding key decides on): see ``CTAPDecoding/lenient``; required keys
    /// 1–4 and `rp.id` must still be there, with the right types.
    package init(cbor: CBORValue, decoding: CTAPDecoding = .strict) throws(CTAPError) {
        let reader = try CTAPMapReader(cbor, path: "makeCredential", decoding: decoding)
        let clientDataHash = try reader.requiredBytes(1, "clientDataHash")
        guard reader.isLenient || clientDataHash.count == 32 else {
            throw .invalidLength(field: reader.fieldPath("clientDataHash"))
        }
        let rp = try PublicKeyCredentialRPEntity(
            cbor: try reader.requiredMap(2, "rp").value, path: reader.fieldPath("rp"), decoding: decoding)
        let user = try PublicKeyCredentialUserEntity(
            cbor: try reader.requiredMap(3, "user").value, path: reader.fieldPath("user"), decoding: decoding)
        var parameters: [PublicKeyCredentialParameters] = []
        for (index, element) in try reader.requiredArray(4, "pubKeyCredParams").enumerated() {
            let path = reader.fieldPath("pubKeyCredParams[\(index)]")
            do throws(CTAPError) {
                parameters.append(try PublicKeyCredentialParameters(cbor: element, path: path, decoding: decoding))
            } catch {
                guard reader.isLenient else { throw error }
            }
        }
        let excludeList = try reader.array(5, "excludeList").map { (elements) throws(CTAPError) in
            try PublicKeyCredentialDescriptor.list(elements, path: reader.fieldPath("excludeList"), decoding: decoding)
        }
        let extensions = try reader.map(6, "extensions")?.value
        let options = try reader.map(7, "options").map { (options) throws(CTAPError) in
            try CTAPRequestOptions(cbor: options.value, path: reader.fieldPath("options"), decoding: decoding)
        }
        self.init(
            clientDataHash: clientDataHash, rp: rp, user: user, publicKeyCredentialParameters: parameters,
            excludeList: excludeList, extensions: extensions, options: options,
            pinUvAuthParam: try reader.bytes(8, "pinUvAuthParam"),
            pinUvAuthProtocol: try reader.unsigned(9, "pinUvAuthProtocol", as: UInt64.self),
            enterpriseAttestation: try reader.unsigned(10, "enterpriseAttestation", as: UInt64.self)
        )
    }
}
