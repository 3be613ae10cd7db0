import Crypto
import Foundation
import HybridCore

extension CXFDocument {
    /// The document as CXF 1.0 JSON (UTF-8, sorted keys, a final newline): one account holding
    /// one item per passkey, each with its one `passkey` credential (CXF 1.0 "Header", "Account",
    /// "Item", "Passkey"). Byte strings are unpadded base64url; `key` is the PKCS#8 DER of the
    /// private key (swift-crypto's `derRepresentation`, RFC 5958).
    /// - Parameter accountID: the account's opaque `id` (1–64 bytes; CXF says it is machine-made
    ///   and not shown). Item IDs are the first 16 bytes of SHA-256 of the credential ID.
    package func encoded(accountID: [UInt8]) -> [UInt8] {
        let items = passkeys.map { passkey in
            WireItem(
                id: Base64URL.encode(Array(SHA256.hash(data: passkey.credentialID)).prefix(16)),
                creationAt: passkey.createdAt, title: passkey.title ?? passkey.rpID,
                credentials: [
                    WirePasskey(
                        credentialId: Base64URL.encode(passkey.credentialID), rpId: passkey.rpID,
                        username: passkey.username, userDisplayName: passkey.userDisplayName,
                        userHandle: Base64URL.encode(passkey.userHandle),
                        key: Base64URL.encode(passkey.privateKey.derRepresentation),
                        fido2Extensions: passkey.hmacCredentials.map {
                            WireExtensions(
                                hmacCredentials: WireHMAC(
                                    algorithm: CXFHMACCredentials.algorithm, credWithUV: Base64URL.encode($0.withUV),
                                    credWithoutUV: Base64URL.encode($0.withoutUV)))
                        })
                ])
        }
        let header = WireHeader(
            version: WireVersion(major: version.major, minor: version.minor), exporterRpId: exporterRPID,
            exporterDisplayName: exporterDisplayName, timestamp: timestamp,
            accounts: [
                WireAccount(id: Base64URL.encode(accountID), username: "", email: "", collections: [], items: items)
            ])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Encoding strings, numbers and arrays of them cannot fail.
        return Array((try? encoder.encode(header)) ?? Data()) + [0x0a]
    }
}

private struct WireHeader: Encodable {
    var version: WireVersion
    var exporterRpId: String
    var exporterDisplayName: String
    var timestamp: UInt64
    var accounts: [WireAccount]
}

private struct WireVersion: Encodable {
    var major: Int
    var minor: Int
}

private struct WireAccount: Encodable {
    var id: String
    var username: String
    var email: String
    /// Empty: required by readers of the 2025-03 review draft, harmless to later ones.
    var collections: [String]
    var items: [WireItem]
}

private struct WireItem: Encodable {
    var id: String
    var creationAt: UInt64?
    var title: String
    var credentials: [WirePasskey]
}

private struct WirePasskey: Encodable {
    var type = CXFDocument.passkeyType
    var credentialId: String
    var rpId: String
    var username: String
    var userDisplayName: String
    var userHandle: String
    var key: String
    var fido2Extensions: WireExtensions?
}

private struct WireExtensions: Encodable {
    var hmacCredentials: WireHMAC
}

private struct WireHMAC: Encodable {
    var algorithm: String
    var credWithUV: String
    var credWithoutUV: String
}
