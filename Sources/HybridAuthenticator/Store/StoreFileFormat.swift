import Crypto
import Foundation

/// The JSON document a ``FilePasskeyStore`` writes (version 2). Byte strings are lower-case hex.
///
/// ```json
/// {"format": "hybrid-authenticator-passkeys", "version": 2,
///  "protection": {"mode": "scrypt-aes-256-gcm", "salt": "…", "scryptN": 131072, "scryptR": 8,
///                 "scryptP": 1, "check": "…"},
///  "credentials": [{"id": "…", "rpId": "example.com", "userHandle": "…", "userName": "alice",
///                   "discoverable": true, "signCount": 3, "created": 1767225600.0,
///                   "privateKey": "…"}],
///  "mac": "…"}
/// ```
/// In `"plaintext"` mode, `privateKey` is the raw 32-byte scalar and there is no `mac` (there is
/// no key to make one: anyone who can write the file can change anything in it). In
/// `"scrypt-aes-256-gcm"` mode `privateKey` is an AES-GCM box (nonce ‖ ciphertext ‖ tag) under the
/// passphrase key with the credential and format version as associated data, `check` is an
/// AES-GCM box that proves the passphrase, and `mac` authenticates every other byte of the file
/// (``StoreFileMAC``).
///
/// Version 1 is the same without `mac` (so its counters and names were not authenticated) and
/// with `v1` in the key boxes' associated data. It is still read, and the next write turns it
/// into version 2.
///
/// Optional credential members: `credProtect` (1–3; absent when it was not asked for, level 1) and
/// `prfSecret` (kept like `privateKey`, sealed under its own associated data; absent in passkeys
/// made before prf, which then answer without prf results). The MAC covers them like every byte.
///
/// Optional top-level member `wallet`: the identity wallet (`WalletSection`), with its own version.
struct StoreFileDocument: Codable, Equatable {
    static let formatName = "hybrid-authenticator-passkeys"
    static let currentVersion = 2
    /// Versions this program reads.
    static let readableVersions = 1...2

    var format: String
    var version: Int
    var protection: ProtectionRecord
    var credentials: [CredentialRecord]
    /// The MAC of an encrypted version-2 file, written and checked on the file's bytes by
    /// ``StoreFileMAC``; `nil` when encoding.
    var mac: String? = nil
    /// The wallet (`WalletSection`, versioned on its own); absent in files without one.
    var wallet: WalletSection? = nil

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

    /// The file's bytes, with the `mac` member of ``StoreFileMAC`` when `macKey` is given.
    func encoded(macKey: SymmetricKey?) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        var unauthenticated = self
        unauthenticated.mac = nil
        // Encoding these plain records cannot fail.
        let bytes = Array((try? encoder.encode(unauthenticated)) ?? Data()) + [0x0a]
        return macKey.map { StoreFileMAC.appending(to: bytes, key: $0) } ?? bytes
    }

    static func decode(_ bytes: [UInt8]) throws(PasskeyStoreError) -> Self {
        let document: Self
        do {
            document = try JSONDecoder().decode(Self.self, from: Data(bytes))
        } catch {
            throw .corrupt(reason: "not a passkey store document (\(Self.describe(error)))")
        }
        guard document.format == formatName else { throw .corrupt(reason: "format is not \(formatName)") }
        guard document.version <= readableVersions.upperBound else { throw .unsupportedVersion(document.version) }
        guard readableVersions.contains(document.version) else { throw .corrupt(reason: "version \(document.version)") }
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
