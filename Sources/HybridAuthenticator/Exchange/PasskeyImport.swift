import Foundation

/// The passkeys of a CXF document as this authenticator stores them. Sans-IO.
///
/// Every imported passkey is discoverable, has signature counter 0 (CXF 1.0 "Passkey": an
/// importer sets it to zero and never increments it; ``CTAPAuthenticator`` never increments a zero
/// counter), no credProtect level, and `credWithUV` as its prf secret: this authenticator
/// evaluates prf only for a verified user, as HMAC-SHA-256(secret, salt), so prf results equal the
/// exporter's when the exporter followed CTAP 2.1 §12.5. `credWithoutUV` is not kept (no result is
/// ever made without user verification here), nor are `credBlob`, `largeBlob` and `payments`.
package struct PasskeyImport: Sendable {
    /// The passkeys to add, in document order.
    package let passkeys: [Passkey]
    /// The document's credentials of other types.
    package let skipped: [CXFSkippedCredential]
    /// Per passkey path, the `fido2Extensions` members that were not kept.
    package let droppedExtensions: [(field: String, names: [String])]

    /// The passkeys of `document`; `now` is the creation time of those whose item has no `creationAt`.
    package init(document: CXFDocument, now: Date) {
        passkeys = document.passkeys.map { passkey in
            Passkey(
                metadata: PasskeyMetadata(
                    credentialID: passkey.credentialID, rpID: passkey.rpID, rpName: nil,
                    userHandle: passkey.userHandle, userName: passkey.username.isEmpty ? nil : passkey.username,
                    userDisplayName: passkey.userDisplayName.isEmpty ? nil : passkey.userDisplayName, signCount: 0,
                    createdAt: passkey.createdAt.map { Date(timeIntervalSince1970: TimeInterval($0)) } ?? now,
                    isDiscoverable: true, credentialProtection: nil),
                privateKey: passkey.privateKey, prfSecret: passkey.hmacCredentials?.withUV)
        }
        skipped = document.skipped
        droppedExtensions = document.passkeys.filter { !$0.droppedExtensions.isEmpty }.map {
            ($0.field, $0.droppedExtensions)
        }
    }
}

/// A passkey of an import that clashes with one in the store.
package struct PasskeyImportConflict: Hashable, Sendable {
    /// How it clashes.
    package enum Kind: Hashable, Sendable {
        /// The store has a passkey with the same credential ID (the store's key: for the same
        /// RP ID in practice, as credential IDs are random).
        case sameCredential
        /// The store has another discoverable passkey for the same account (RP ID and user
        /// handle), which the import would replace (CTAP 2.1 §6.1.2: one per account).
        case sameAccount(existingCredentialID: [UInt8])
    }

    /// The RP ID.
    package let rpID: String
    /// The imported passkey's credential ID.
    package let credentialID: [UInt8]
    /// How it clashes.
    package let kind: Kind

    /// A clash from its parts.
    package init(rpID: String, credentialID: [UInt8], kind: Kind) {
        self.rpID = rpID
        self.credentialID = credentialID
        self.kind = kind
    }
}

/// What an import did to the store.
package enum PasskeyImportOutcome: Hashable, Sendable {
    /// Every passkey was added; `replaced` existing passkeys were overwritten.
    case imported(count: Int, replaced: Int)
    /// Nothing was written: these passkeys clash with the store's and replacing was not asked for.
    case refused([PasskeyImportConflict])
}

extension [Passkey] {
    /// The clashes of `incoming` with these passkeys.
    func importConflicts(with incoming: [Passkey]) -> [PasskeyImportConflict] {
        incoming.compactMap { passkey in
            let metadata = passkey.metadata
            if contains(where: { $0.credentialID == metadata.credentialID }) {
                return PasskeyImportConflict(
                    rpID: metadata.rpID, credentialID: metadata.credentialID, kind: .sameCredential)
            }
            if let other = first(where: {
                $0.metadata.isDiscoverable && $0.metadata.rpID == metadata.rpID
                    && $0.metadata.userHandle == metadata.userHandle
            }) {
                return PasskeyImportConflict(
                    rpID: metadata.rpID, credentialID: metadata.credentialID,
                    kind: .sameAccount(existingCredentialID: other.credentialID))
            }
            return nil
        }
    }
}
