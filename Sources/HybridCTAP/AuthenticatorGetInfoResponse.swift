import HybridCore

/// The authenticatorGetInfo (0x04) response map (CTAP 2.1 §6.4). Over hybrid it also travels,
/// without its status byte, in key 1 of the post-handshake message (protocol.md §7.2, §8.3).
///
/// Keys modelled: 1 versions, 2 extensions, 3 aaguid, 4 options, 5 maxMsgSize,
/// 6 pinUvAuthProtocols, 7 maxCredentialCountInList, 8 maxCredentialIdLength, 9 transports,
/// 10 algorithms, 14 firmwareVersion. Other keys are ignored when parsing.
public struct AuthenticatorGetInfoResponse: Hashable, Sendable {
    /// e.g. `["FIDO_2_0", "FIDO_2_1"]`. Required.
    public var versions: [String]
    /// Key 2: the extensions the authenticator supports.
    public var extensions: [String]?
    /// 16 bytes. Required.
    public var aaguid: [UInt8]
    /// e.g. `["rk": true, "up": true, "uv": true]`.
    public var options: [String: Bool]?
    /// Key 5: the largest message it accepts, in bytes.
    public var maxMessageSize: UInt64?
    /// Key 6: the PIN/UV auth protocols it supports, in order of preference.
    public var pinUvAuthProtocols: [UInt64]?
    /// Key 7: the most credentials an allow or exclude list may hold.
    public var maxCredentialCountInList: UInt64?
    /// Key 8: the longest credential ID it makes or accepts.
    public var maxCredentialIDLength: UInt64?
    /// e.g. `["internal", "hybrid"]`.
    public var transports: [String]?
    /// Key 10: the credential algorithms it supports, in order of preference.
    public var algorithms: [PublicKeyCredentialParameters]?
    /// Key 14: the firmware version.
    public var firmwareVersion: UInt64?

    /// A getInfo response from its fields; `nil` leaves a key out.
    public init(
        versions: [String], extensions: [String]? = nil, aaguid: [UInt8], options: [String: Bool]? = nil,
        maxMessageSize: UInt64? = nil, pinUvAuthProtocols: [UInt64]? = nil,
        maxCredentialCountInList: UInt64? = nil, maxCredentialIDLength: UInt64? = nil,
        transports: [String]? = nil, algorithms: [PublicKeyCredentialParameters]? = nil,
        firmwareVersion: UInt64? = nil
    ) {
        self.versions = versions
        self.extensions = extensions
        self.aaguid = aaguid
        self.options = options
        self.maxMessageSize = maxMessageSize
        self.pinUvAuthProtocols = pinUvAuthProtocols
        self.maxCredentialCountInList = maxCredentialCountInList
        self.maxCredentialIDLength = maxCredentialIDLength
        self.transports = transports
        self.algorithms = algorithms
        self.firmwareVersion = firmwareVersion
    }

    /// The response map (canonical once encoded).
    package var cbor: CBORValue {
        func number(_ value: UInt64?) -> CBORValue? { value.map { .int(Int64(clamping: $0)) } }
        func texts(_ value: [String]?) -> CBORValue? { value.map { .array($0.map(CBORValue.text)) } }
        var entries: [CBORMapEntry] = [CBORMapEntry(1, .array(versions.map(CBORValue.text)))]
        entries.append(2, texts(extensions))
        entries.append(3, .bytes(aaguid))
        entries.append(4, options.map { .map($0.map { CBORMapEntry(.text($0.key), .bool($0.value)) }) })
        entries.append(5, number(maxMessageSize))
        entries.append(6, pinUvAuthProtocols.map { .array($0.map { .int(Int64(clamping: $0)) }) })
        entries.append(7, number(maxCredentialCountInList))
        entries.append(8, number(maxCredentialIDLength))
        entries.append(9, texts(transports))
        entries.append(10, algorithms.map { .array($0.map(\.cbor)) })
        entries.append(14, number(firmwareVersion))
        return .map(entries)
    }

    /// The canonical map bytes, without a status byte (the form post-handshake key 1 carries).
    public var encoded: [UInt8] { CBOREncoder.encode(cbor) }

    /// Parses the map strictly: versions (array of text) and a 16-byte aaguid are required;
    /// every modelled key must have its type; option values must be booleans.
    package init(cbor: CBORValue) throws(CTAPError) {
        let reader = try CTAPMapReader(cbor, path: "getInfo")
        guard let versions = try reader.textArray(1, "versions") else {
            throw .missingParameter(field: reader.fieldPath("versions"))
        }
        let aaguid = try reader.requiredBytes(3, "aaguid")
        guard aaguid.count == 16 else { throw .invalidLength(field: reader.fieldPath("aaguid")) }
        var options: [String: Bool]? = nil
        if let map = try reader.map(4, "options") {
            var parsed: [String: Bool] = [:]
            for entry in map.entries {
                guard let name = entry.key.textValue else { throw .unexpectedType(field: map.path) }
                guard let flag = entry.value.boolValue else { throw .unexpectedType(field: map.fieldPath(name)) }
                parsed[name] = flag
            }
            options = parsed
        }
        var protocols: [UInt64]? = nil
        if let elements = try reader.array(6, "pinUvAuthProtocols") {
            protocols = []
            for element in elements {
                guard let number = element.intValue else {
                    throw .unexpectedType(field: reader.fieldPath("pinUvAuthProtocols"))
                }
                guard let value = UInt64(exactly: number) else {
                    throw .invalidParameter(field: reader.fieldPath("pinUvAuthProtocols"))
                }
                protocols?.append(value)
            }
        }
        var algorithms: [PublicKeyCredentialParameters]? = nil
        if let elements = try reader.array(10, "algorithms") {
            algorithms = []
            for (index, element) in elements.enumerated() {
                algorithms?.append(
                    try PublicKeyCredentialParameters(cbor: element, path: reader.fieldPath("algorithms[\(index)]")))
            }
        }
        self.init(
            versions: versions, extensions: try reader.textArray(2, "extensions"), aaguid: aaguid, options: options,
            maxMessageSize: try reader.unsigned(5, "maxMsgSize", as: UInt64.self), pinUvAuthProtocols: protocols,
            maxCredentialCountInList: try reader.unsigned(7, "maxCredentialCountInList", as: UInt64.self),
            maxCredentialIDLength: try reader.unsigned(8, "maxCredentialIdLength", as: UInt64.self),
            transports: try reader.textArray(9, "transports"), algorithms: algorithms,
            firmwareVersion: try reader.unsigned(14, "firmwareVersion", as: UInt64.self)
        )
    }

    /// Parses canonical map bytes without a status byte (post-handshake key 1).
    public init(bytes: some Collection<UInt8>) throws(CTAPError) {
        try self.init(cbor: try CTAPResponse.decodeBody(bytes))
    }
}
