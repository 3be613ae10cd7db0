import Foundation

/// The members of a CXF 1.0 document this authenticator reads, as JSON decodes them: everything
/// optional, so that a missing member is reported by name (``CXFDocument`` checks them), and
/// unknown members ignored (an importer ignores what it does not know).
enum CXFWire {
    struct Header: Decodable {
        var version: Version?
        var exporterRpId: String?
        var exporterDisplayName: String?
        var timestamp: UInt64?
        var accounts: [Account]?
    }

    struct Version: Decodable {
        var major: Int?
        var minor: Int?
    }

    struct Account: Decodable {
        var id: String?
        var items: [Item]?
    }

    struct Item: Decodable {
        var id: String?
        var creationAt: UInt64?
        var title: String?
        var credentials: [Credential]?
    }

    /// One credential: its `type`, and the passkey members only when it is a passkey (other types
    /// use the same member names with other JSON types, e.g. `basic-auth`'s `username` object).
    struct Credential: Decodable {
        var type: String?
        var passkey: Passkey?

        private enum CodingKeys: String, CodingKey { case type }

        init(from decoder: any Decoder) throws {
            type = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(String.self, forKey: .type)
            passkey = type == CXFDocument.passkeyType ? try Passkey(from: decoder) : nil
        }
    }

    struct Passkey: Decodable {
        var credentialId: String?
        var rpId: String?
        var username: String?
        var userDisplayName: String?
        var userHandle: String?
        var key: String?
        var fido2Extensions: Extensions?
    }

    struct Extensions: Decodable {
        var hmacCredentials: HMACCredentials?
        var credBlob: String?
        var largeBlob: LargeBlob?
        var payments: Bool?
    }

    struct HMACCredentials: Decodable {
        var algorithm: String?
        var credWithUV: String?
        var credWithoutUV: String?
    }

    struct LargeBlob: Decodable {
        var uncompressedSize: UInt64?
        var data: String?
    }

    /// `accounts[0].items[2].key` from a decoding path.
    static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return text
    }
}
