import HybridCore

/// authenticatorGetAssertion (0x02) parameters (CTAP 2.1 §6.2).
///
/// Keys: 1 rpId, 2 clientDataHash, 3 allowList, 4 extensions, 5 options, 6 pinUvAuthParam,
/// 7 pinUvAuthProtocol. Unknown keys are ignored when parsing.
public struct GetAssertionRequest: Hashable, Sendable {
    /// Key 1: the relying party ID.
    public var rpID: String
    /// SHA-256 of the client data: 32 bytes.
    public var clientDataHash: [UInt8]
    /// Acceptable credentials; `nil` or empty asks for discoverable credentials.
    public var allowList: [PublicKeyCredentialDescriptor]?
    /// Extension inputs: a map with text keys, kept as given.
    public var extensions: CBORValue?
    /// Key 5: the `up` and `uv` options.
    public var options: CTAPRequestOptions?
    /// Key 6: the PIN/UV auth parameter.
    public var pinUvAuthParam: [UInt8]?
    /// Key 7: the PIN/UV auth protocol version.
    public var pinUvAuthProtocol: UInt64?

    /// A request from its parameters; `nil` leaves a key out.
    public init(
        rpID: String,
        clientDataHash: [UInt8],
        allowList: [PublicKeyCredentialDescriptor]? = nil,
        extensions: CBORValue? = nil,
        options: CTAPRequestOptions? = nil,
        pinUvAuthParam: [UInt8]? = nil,
        pinUvAuthProtocol: UInt64? = nil
    ) {
        self.rpID = rpID
        self.clientDataHash = clientDataHash
        self.allowList = allowList
        self.extensions = extensions
        self.options = options
        self.pinUvAuthParam = pinUvAuthParam
        self.pinUvAuthProtocol = pinUvAuthProtocol
    }

    /// The parameter map.
    package var cbor: CBORValue {
        var entries: [CBORMapEntry] = [CBORMapEntry(1, .text(rpID)), CBORMapEntry(2, .bytes(clientDataHash))]
        entries.append(3, allowList.map { .array($0.map(\.cbor)) })
        entries.append(4, extensions)
        entries.append(5, options.map(\.cbor))
        entries.append(6, pinUvAuthParam.map(CBORValue.bytes))
        entries.append(7, pinUvAuthProtocol.map { .int(Int64(clamping: $0)) })
        return .map(entries)
    }

    /// Command byte 0x02 followed by the canonical parameter map.
    public var encoded: [UInt8] { [CTAPCommand.getAssertion.rawValue] + CBOREncoder.encode(cbor) }

    /// Parses the parameter map. Strict (what an authenticator serves): required keys 1 and 2,
    /// every known key of its type, clientDataHash 32 bytes, extensions a map. Lenient (what a
    /// forwarding key decides on): see ``CTAPDecoding/lenient``; keys 1 and 2 must still be there,
    /// with the right types.
    package init(cbor: CBORValue, decoding: CTAPDecoding = .strict) throws(CTAPError) {
        let reader = try CTAPMapReader(cbor, path: "getAssertion", decoding: decoding)
        let rpID = try reader.requiredText(1, "rpId")
        let clientDataHash = try reader.requiredBytes(2, "clientDataHash")
        guard reader.isLenient || clientDataHash.count == 32 else {
            throw .invalidLength(field: reader.fieldPath("clientDataHash"))
        }
        let allowList = try reader.array(3, "allowList").map { (elements) throws(CTAPError) in
            try PublicKeyCredentialDescriptor.list(elements, path: reader.fieldPath("allowList"), decoding: decoding)
        }
        let extensions = try reader.map(4, "extensions")?.value
        let options = try reader.map(5, "options").map { (options) throws(CTAPError) in
            try CTAPRequestOptions(cbor: options.value, path: reader.fieldPath("options"), decoding: decoding)
        }
        self.init(
            rpID: rpID, clientDataHash: clientDataHash, allowList: allowList, extensions: extensions,
            options: options, pinUvAuthParam: try reader.bytes(6, "pinUvAuthParam"),
            pinUvAuthProtocol: try reader.unsigned(7, "pinUvAuthProtocol", as: UInt64.self)
        )
    }
}
