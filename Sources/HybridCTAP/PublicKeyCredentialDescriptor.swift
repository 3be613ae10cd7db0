import HybridCore

/// A credential reference: excludeList and allowList entries, and getAssertion's response key 1.
public struct PublicKeyCredentialDescriptor: Hashable, Sendable {
    /// The only credential type WebAuthn defines.
    public static let publicKeyType = "public-key"

    /// `"public-key"`; entries of other types are ignored by authenticators.
    public var type: String
    /// The credential ID.
    public var id: [UInt8]
    /// Transport hints (`"usb"`, `"nfc"`, `"ble"`, `"internal"`, `"hybrid"`, …), or `nil` if absent.
    public var transports: [String]?

    /// A descriptor; the type defaults to `"public-key"`.
    public init(type: String = Self.publicKeyType, id: [UInt8], transports: [String]? = nil) {
        self.type = type
        self.id = id
        self.transports = transports
    }

    /// The same descriptor without transport hints. Use this for descriptors sent to a phone:
    /// iOS rejects descriptors carrying `transports: ["usb"]` (protocol.md §10.5), and the
    /// authenticator does not need the hints.
    package var withoutTransports: Self { Self(type: type, id: id, transports: nil) }

    /// Whether this is a `"public-key"` descriptor, the only type an authenticator matches.
    package var isPublicKey: Bool { type == Self.publicKeyType }

    /// `{"id", "type", "transports"?}`.
    package var cbor: CBORValue {
        var entries: [CBORMapEntry] = [CBORMapEntry("id", .bytes(id)), CBORMapEntry("type", .text(type))]
        entries.append("transports", transports.map { .array($0.map(CBORValue.text)) })
        return .map(entries)
    }

    /// Parses the map: `type` (text) and `id` (bytes) are required, `transports` must be an
    /// array of text if present. Unknown keys are ignored.
    package init(cbor: CBORValue, path: String = "credential", decoding: CTAPDecoding = .strict) throws(CTAPError) {
        let reader = try CTAPMapReader(cbor, path: path, decoding: decoding)
        self.init(
            type: reader.isLenient ? try reader.text("type", "type") ?? "" : try reader.requiredText("type", "type"),
            id: try reader.requiredBytes("id", "id"),
            transports: try reader.textArray("transports", "transports")
        )
    }

    /// Parses an array of descriptors (an allow or exclude list).
    /// A descriptor list; lenient decoding skips the entries without a byte-string `id` (and
    /// reads a missing `type` as empty).
    static func list(_ elements: [CBORValue], path: String, decoding: CTAPDecoding = .strict) throws(CTAPError)
        -> [Self]
    {
        var list: [Self] = []
        for (index, element) in elements.enumerated() {
            do throws(CTAPError) {
                list.append(try Self(cbor: element, path: "\(path)[\(index)]", decoding: decoding))
            } catch {
                guard decoding == .lenient else { throw error }
            }
        }
        return list
    }
}
