import Crypto
import Foundation
import HybridCore
import HybridWallet

/// The wallet's section of the store file: the device key and the identity credentials, with a
/// version of its own so that the passkey format (and files written before the wallet existed,
/// which have no section and open with an empty wallet) stays as it was.
///
/// ```json
/// "wallet": {"version": 1, "deviceKey": "…",
///            "credentials": [{"id": "…", "format": "dc+sd-jwt", "added": 1767225600.0, "content": "…"}]}
/// ```
/// In an encrypted store `deviceKey` (the 32-byte scalar) and every `content` (the issuer's bytes)
/// are AES-GCM boxes (nonce ‖ ciphertext ‖ tag, hex) under the passphrase key, with associated
/// data naming the kind, the section version and, for a credential, its id and format, so no box
/// can be moved to another place; the store's MAC covers the whole section like every other
/// byte. In a plaintext store (tests only) they are the raw bytes in hex.
struct WalletSection: Codable, Equatable {
    static let currentVersion = 1

    var version: Int
    var deviceKey: String?
    var credentials: [CredentialRecord]

    struct CredentialRecord: Codable, Equatable {
        var id: String
        var format: String
        var added: Double
        var content: String
    }

    /// Seals `contents` for the file.
    init(_ contents: WalletContents, encryption: StoreEncryption?, random: RandomSource) throws(PasskeyStoreError) {
        version = Self.currentVersion
        deviceKey = try contents.deviceKey.map { (key) throws(PasskeyStoreError) in
            try Self.seal(Array(key.privateKey.rawRepresentation), aad: Self.deviceKeyAAD, encryption, random)
        }
        var records: [CredentialRecord] = []
        for credential in contents.credentials {
            records.append(
                CredentialRecord(
                    id: credential.id, format: credential.format.rawValue,
                    added: credential.addedAt.timeIntervalSince1970,
                    content: try Self.seal(
                        credential.bytes, aad: Self.credentialAAD(credential.id, credential.format.rawValue),
                        encryption, random)))
        }
        credentials = records
    }

    /// The contents, opened and checked.
    func contents(encryption: StoreEncryption?) throws(PasskeyStoreError) -> WalletContents {
        guard version <= Self.currentVersion else { throw .unsupportedVersion(version) }
        guard version == Self.currentVersion else { throw .corrupt(reason: "wallet section version \(version)") }
        var contents = WalletContents()
        if let deviceKey {
            let scalar = try Self.open(deviceKey, aad: Self.deviceKeyAAD, encryption)
            guard let key = try? P256.Signing.PrivateKey(rawRepresentation: scalar) else {
                throw .corrupt(reason: "the wallet's device key is invalid")
            }
            contents.deviceKey = DeviceKey(privateKey: key)
        }
        for (index, record) in credentials.enumerated() {
            guard let format = CredentialFormat(rawValue: record.format), !record.id.isEmpty, record.added.isFinite,
                !contents.credentials.contains(where: { $0.id == record.id })
            else { throw .corrupt(reason: "wallet credential \(index) has a bad or repeated id, format or date") }
            let bytes = try Self.open(record.content, aad: Self.credentialAAD(record.id, record.format), encryption)
            contents.credentials.append(
                WalletCredential(
                    id: record.id, format: format, bytes: bytes, addedAt: Date(timeIntervalSince1970: record.added)))
        }
        return contents
    }

    private static var deviceKeyAAD: [UInt8] { Array("hybrid-authenticator/wallet v\(currentVersion) device key".utf8) }

    private static func credentialAAD(_ id: String, _ format: String) -> [UInt8] {
        Array("hybrid-authenticator/wallet v\(currentVersion) credential".utf8)
            + CBOREncoder.encode([.text(id), .text(format)])
    }

    private static func seal(
        _ bytes: [UInt8], aad: [UInt8], _ encryption: StoreEncryption?, _ random: RandomSource
    ) throws(PasskeyStoreError) -> String {
        guard let encryption else { return Hex.encode(bytes) }
        return Hex.encode(try encryption.seal(bytes, aad: aad, nonce: random.bytes(12)))
    }

    private static func open(_ field: String, aad: [UInt8], _ encryption: StoreEncryption?) throws(PasskeyStoreError)
        -> [UInt8]
    {
        let stored: [UInt8]
        do { stored = try Hex.decode(field) } catch { throw .corrupt(reason: "invalid hex in the wallet section") }
        guard let encryption else { return stored }
        do { return try encryption.open(stored, aad: aad) } catch { throw .authenticationFailed }
    }
}

/// What the wallet holds: its device key (none until `wallet key` makes one) and its
/// credentials, newest first.
package struct WalletContents: Sendable {
    /// The device key.
    package var deviceKey: DeviceKey?
    /// The credentials, newest first.
    package var credentials: [WalletCredential] = []

    /// An empty wallet.
    package init(deviceKey: DeviceKey? = nil, credentials: [WalletCredential] = []) {
        self.deviceKey = deviceKey
        self.credentials = credentials
    }
}
