import Foundation

/// The JSON document a ``FilePasskeyStore`` writes (version 1). Byte strings are lower-case hex.
///
/// ```json
/// {"format": "hybrid-authenticator-passkeys", "version": 1,
///  "protection": {"mode": "scrypt-aes-256-gcm", "salt": "…", "scryptN": 131072, "scryptR": 8,
///                 "scryptP": 1, "check": "…"},
///  "credentials": [{"id": "…", "rpId": "example.com", "userHandle": "…", "userName": "alice",
///                   "discoverable": true, "signCount": 3, "created": 1767225600.0,
///                   "privateKey": "…"}]}
/// ```
/// In `"plaintext"` mode, `privateKey` is the raw 32-byte scalar; in `"scrypt-aes-256-gcm"` mode
/// it is an AES-GCM box (nonce ‖ ciphertext ‖ tag) under the passphrase key, and `check` is an
/// AES-GCM box that proves the passphrase. Optional members added later, without a version change
/// since older files stay valid: `credProtect` (1–3) and `prfSecret` (kept like `privateKey`).
struct StoreFileDocument: Codable, Equatable {
    static let formatName = "hybrid-authenticator-passkeys"
    static let currentVersion = 1

    var format: String
    var version: Int
    var protection: ProtectionRecord
    var credentials: [CredentialRecord]

    struct ProtectionRecord: Codable, Equatable {
        static let plaintextMode = "plaintext"
        static let scryptMode = "scrypt-aes-256-gcm"

        var mode: String
        var salt: String?
        var scryptN: Int?
        var scryptR: Int?
        var scryptP: Int?
        var check: String?
    }

    struct CredentialRecord: Codable, Equatable {
        var id: String
        var rpId: String
        var rpName: String?
        var userHandle: String
        var userName: String?
        var userDisplayName: String?
        var discoverable: Bool
        var signCount: UInt32
        var created: Double
        var privateKey: String
        /// The `credProtect` level (1–3); absent when it was not asked for (level 1).
        var credProtect: UInt8? = nil
        /// The prf secret, kept like `privateKey` (raw, or an AES-GCM box under its own
        /// associated data); absent in passkeys stored before prf, which then have no prf.
        var prfSecret: String? = nil
    }

    func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        // Encoding these plain records cannot fail.
        return Array((try? encoder.encode(self)) ?? Data()) + [0x0a]
    }

    static func decode(_ bytes: [UInt8]) throws(PasskeyStoreError) -> Self {
        let document: Self
        do {
            document = try JSONDecoder().decode(Self.self, from: Data(bytes))
        } catch {
            throw .corrupt(reason: "not a passkey store document (\(Self.describe(error)))")
        }
        guard document.format == formatName else { throw .corrupt(reason: "format is not \(formatName)") }
        guard document.version <= currentVersion else { throw .unsupportedVersion(document.version) }
        guard document.version == currentVersion else { throw .corrupt(reason: "version \(document.version)") }
        return document
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context), DecodingError.keyNotFound(_, let context),
            DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        default:
            return "unreadable JSON"
        }
    }
}
