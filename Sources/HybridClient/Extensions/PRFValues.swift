import Crypto
import HybridCore

/// `AuthenticationExtensionsPRFValues` (WebAuthn L3 §10.1.4): one or two PRF inputs, or results.
public struct PRFValues: Sendable, Hashable {
    /// The first salt input (or output), raw bytes.
    public var first: [UInt8]
    /// The second, if given.
    public var second: [UInt8]?

    /// One or two values.
    public init(first: [UInt8], second: [UInt8]? = nil) {
        self.first = first
        self.second = second
    }

    /// The salts a client sends to the authenticator for these inputs (WebAuthn L3 §10.1.4):
    /// SHA-256("WebAuthn PRF" ‖ 0x00 ‖ input) for each.
    package var salts: PRFValues {
        PRFValues(first: Self.salt(first), second: second.map(Self.salt))
    }

    /// SHA-256("WebAuthn PRF" ‖ 0x00 ‖ `input`).
    package static func salt(_ input: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(data: Array("WebAuthn PRF".utf8) + [0x00] + input))
    }

    /// `{"first": bytes, "second": bytes}` (second omitted when absent), as CTAP's prf extension carries it.
    var cbor: CBORValue {
        var entries = [CBORMapEntry(.text("first"), .bytes(first))]
        if let second { entries.append(CBORMapEntry(.text("second"), .bytes(second))) }
        return .map(entries)
    }

    /// Reads a `{"first": 32 bytes, "second"?: 32 bytes}` map of PRF results, as Chromium's
    /// `GetPRFOutputs` does; `nil` if it is anything else.
    init?(results value: CBORValue) {
        guard let entries = value.mapEntries,
            entries.allSatisfy({ $0.key == .text("first") || $0.key == .text("second") }),
            let first = value[textKey: "first"]?.bytesValue, first.count == 32
        else { return nil }
        let second = value[textKey: "second"]
        if let second, second.bytesValue?.count != 32 { return nil }
        self.init(first: first, second: second?.bytesValue)
    }
}

extension PRFValues: Decodable {
    private enum CodingKeys: String, CodingKey { case first, second }

    /// Decodes the JSON form, with the checks browsers make.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        first = try container.decodeBase64URL(forKey: .first)
        second = try container.contains(.second) ? container.decodeBase64URL(forKey: .second) : nil
    }
}
