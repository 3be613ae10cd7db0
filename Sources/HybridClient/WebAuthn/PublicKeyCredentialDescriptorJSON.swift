/// `PublicKeyCredentialDescriptorJSON` (WebAuthn L3 §5.1.x): one entry of `excludeCredentials` or
/// `allowCredentials`.
public struct PublicKeyCredentialDescriptorJSON: Sendable, Hashable {
    /// Always `"public-key"` for descriptors this client keeps (others are dropped by the options parser).
    public var type: String
    /// The credential ID (base64url in JSON).
    public var id: [UInt8]
    /// Transport hints, known values only. Never forwarded to a phone (protocol.md §10.5).
    public var transports: [AuthenticatorTransport]

    /// Creates the value from its members; the defaults are the WebAuthn defaults.
    public init(id: [UInt8], transports: [AuthenticatorTransport] = [], type: String = "public-key") {
        self.type = type
        self.id = id
        self.transports = transports
    }
}

extension PublicKeyCredentialDescriptorJSON: Decodable {
    private enum CodingKeys: String, CodingKey {
        case type, id, transports
    }

    /// Decodes the JSON form, with the checks browsers make.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(String.self, forKey: .type)
        id = try container.decodeBase64URL(forKey: .id)
        transports = try container.decodeLenientEnumArray(AuthenticatorTransport.self, forKey: .transports)
    }
}

extension [PublicKeyCredentialDescriptorJSON] {
    /// Keeps the descriptors of type `public-key`; WebAuthn clients skip descriptors of unknown types.
    var publicKeyOnly: [PublicKeyCredentialDescriptorJSON] { filter { $0.type == "public-key" } }
}
