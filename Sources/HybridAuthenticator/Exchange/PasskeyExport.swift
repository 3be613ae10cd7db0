import Crypto
import Foundation

/// Which of the store's passkeys go into a CXF document, and what the user must be told.
/// Sans-IO: it takes passkeys and returns a document and a report.
///
/// - A passkey whose signature counter is not zero is left out: CXF 1.0 "Passkey" requires it
///   (two copies of one key with a counter would trip the relying party's clone detection).
/// - prf: the `prf` results of this authenticator are HMAC-SHA-256(prf secret, salt) over the
///   client's already hashed salts, evaluated only for a verified user: exactly CTAP 2.1 §12.5
///   hmac-secret with CredRandomWithUV = the prf secret. So `hmacCredentials.credWithUV` is the
///   prf secret, and an importer that implements prf over hmac-secret gives the same results.
///   No result was ever made without user verification, so `credWithoutUV` carries no history:
///   it is HMAC-SHA-256(prf secret, ``withoutUVLabel``), a separate secret, as CTAP requires
///   the two to differ, and the same on every export.
package struct PasskeyExport: Sendable {
    /// Label of the derivation of `credWithoutUV` from the prf secret.
    package static let withoutUVLabel = Array("hybrid-authenticator CXF credWithoutUV".utf8)

    /// Something the user should know about one passkey.
    package enum Note: Hashable, Sendable {
        /// Left out: its signature counter is `count`, not zero.
        case excludedNonZeroSignatureCounter(count: UInt32)
        /// Exported without `hmacCredentials`: it was made before this authenticator had prf.
        case withoutPRF
        /// Its credProtect level (2 or 3) has no CXF member; an importer applies its own policy.
        case credentialProtectionNotCarried(level: UInt8)
        /// It is not discoverable here; CXF has no such flag, and importers keep passkeys discoverable.
        case becomesDiscoverable

        /// Whether the passkey is missing from the document.
        package var isExclusion: Bool {
            if case .excludedNonZeroSignatureCounter = self { true } else { false }
        }
    }

    /// The document to write.
    package let document: CXFDocument
    /// Per passkey, what the user should be told (exclusions first in each list).
    package let notes: [(passkey: PasskeyMetadata, notes: [Note])]

    /// Builds the export of `passkeys`.
    /// - Parameters:
    ///   - passkeys: the store's passkeys, with their keys.
    ///   - exporterRPID: the `exporterRpId` of the header.
    ///   - exporterDisplayName: the `exporterDisplayName` of the header.
    ///   - timestamp: the export's time (`timestamp`, whole UNIX seconds).
    package init(passkeys: [Passkey], exporterRPID: String, exporterDisplayName: String, timestamp: Date) {
        var exported: [CXFPasskey] = []
        var notes: [(PasskeyMetadata, [Note])] = []
        for passkey in passkeys {
            let metadata = passkey.metadata
            var these: [Note] = []
            guard metadata.signCount == 0 else {
                notes.append((metadata, [.excludedNonZeroSignatureCounter(count: metadata.signCount)]))
                continue
            }
            if passkey.prfSecret == nil { these.append(.withoutPRF) }
            if let level = metadata.credentialProtection?.rawValue, level > 1 {
                these.append(.credentialProtectionNotCarried(level: level))
            }
            if !metadata.isDiscoverable { these.append(.becomesDiscoverable) }
            if !these.isEmpty { notes.append((metadata, these)) }
            exported.append(
                CXFPasskey(
                    credentialID: metadata.credentialID, rpID: metadata.rpID, username: metadata.userName ?? "",
                    userDisplayName: metadata.userDisplayName ?? "", userHandle: metadata.userHandle,
                    privateKey: passkey.privateKey, hmacCredentials: passkey.prfSecret.map(Self.hmacCredentials),
                    createdAt: UInt64(max(0, metadata.createdAt.timeIntervalSince1970)), title: metadata.rpName))
        }
        document = CXFDocument(
            exporterRPID: exporterRPID, exporterDisplayName: exporterDisplayName,
            timestamp: UInt64(max(0, timestamp.timeIntervalSince1970)), passkeys: exported)
        self.notes = notes
    }

    /// The CXF form of a prf secret (see the type's discussion).
    package static func hmacCredentials(prfSecret: [UInt8]) -> CXFHMACCredentials {
        let withoutUV = HMAC<SHA256>.authenticationCode(for: withoutUVLabel, using: SymmetricKey(data: prfSecret))
        return CXFHMACCredentials(withUV: prfSecret, withoutUV: Array(withoutUV))
    }
}
