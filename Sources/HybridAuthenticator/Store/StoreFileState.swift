import Crypto
import Foundation
import HybridCTAP
import HybridCore

/// What a ``FilePasskeyStore`` knows of its file: the keys that open it, and its passkeys.
struct StoreFileState: Sendable {
    /// The passphrase keys (`nil` for a plaintext store) and the check box of the file's header.
    private(set) var encryption: StoreEncryption?
    private(set) var check: [UInt8]?
    /// Newest first.
    private(set) var passkeys: [Passkey]
    /// The wallet, opened.
    private(set) var wallet = WalletContents()
    /// The wallet section as read or last written, kept as it is when only passkeys change.
    private var walletSection: WalletSection?
    /// The sealed members last written for each credential in the current format, so unchanged
    /// secrets keep their boxes (after reading a version-1 file, every secret is sealed again).
    private var keyFields: [[UInt8]: SealedFields]

    /// A store with no file yet: a fresh salt and check when encrypted.
    init(newWith protection: FilePasskeyStore.Protection, parameters: ScryptParameters, random: RandomSource)
        throws(PasskeyStoreError)
    {
        switch protection {
        case .insecurePlaintext:
            (encryption, check) = (nil, nil)
        case .passphrase(let passphrase):
            let encryption = try StoreEncryption(
                passphrase: passphrase, salt: random.bytes(StoreEncryption.saltLength), parameters: parameters)
            (self.encryption, check) = (encryption, try encryption.makeCheck(nonce: random.bytes(12)))
        }
        (passkeys, keyFields) = ([], [:])
    }

    /// Reads and authenticates a store file. `reusing` is the encryption of an earlier read: when
    /// the file still has its salt and parameters, no new scrypt derivation is needed.
    init(reading bytes: [UInt8], protection: FilePasskeyStore.Protection, reusing: StoreEncryption?)
        throws(PasskeyStoreError)
    {
        let document = try StoreFileDocument.decode(bytes)
        let encryption = try Self.unlock(document.protection, with: protection, reusing: reusing)
        if let encryption, document.version >= 2 {
            try StoreFileMAC.verify(bytes, key: encryption.macKey)
        } else if document.mac != nil {
            throw .corrupt(reason: "a MAC in a store without one")
        }
        (self.encryption, check) = (encryption, try document.protection.check.map(Self.hex))
        var passkeys: [Passkey] = []
        var fields: [[UInt8]: SealedFields] = [:]
        for (index, record) in document.credentials.enumerated() {
            let passkey = try record.passkey(index: index, encryption: encryption, version: document.version)
            guard !passkeys.contains(where: { $0.credentialID == passkey.credentialID }) else {
                throw .corrupt(reason: "credential \(index) repeats an ID")
            }
            if document.version == StoreFileDocument.currentVersion {
                fields[passkey.credentialID] = SealedFields(privateKey: record.privateKey, prfSecret: record.prfSecret)
            }
            passkeys.append(passkey)
        }
        (self.passkeys, keyFields) = (passkeys.sortedNewestFirst(), fields)
        walletSection = document.wallet
        wallet = try document.wallet?.contents(encryption: encryption) ?? WalletContents()
    }

    /// The file was removed: the next write starts an empty store with the same keys.
    mutating func forgetPasskeys() {
        (passkeys, keyFields) = ([], [:])
        (wallet, walletSection) = (WalletContents(), nil)
    }

    /// The wallet section for `contents`, sealed afresh.
    func sealedWallet(_ contents: WalletContents, random: RandomSource) throws(PasskeyStoreError) -> WalletSection {
        try WalletSection(contents, encryption: encryption, random: random)
    }

    /// After `contents` was written as `section`.
    mutating func adoptWallet(_ contents: WalletContents, section: WalletSection) {
        (wallet, walletSection) = (contents, section)
    }

    /// The file holding `changed`, and the sealed fields it wrote.
    func encoded(_ changed: [Passkey], wallet section: WalletSection? = nil, random: RandomSource)
        throws(PasskeyStoreError) -> (
            [UInt8], [[UInt8]: SealedFields]
        )
    {
        var fields: [[UInt8]: SealedFields] = [:]
        var records: [StoreFileDocument.CredentialRecord] = []
        for passkey in changed {
            let sealed: SealedFields
            if let reused = reusableFields(for: passkey) {
                sealed = reused
            } else {
                sealed = try sealedFields(for: passkey, random: random)
            }
            fields[passkey.credentialID] = sealed
            records.append(StoreFileDocument.CredentialRecord(passkey.metadata, sealed))
        }
        let document = StoreFileDocument(
            format: StoreFileDocument.formatName, version: StoreFileDocument.currentVersion,
            protection: protectionRecord, credentials: records, wallet: section ?? walletSection)
        return (document.encoded(macKey: encryption?.macKey), fields)
    }

    /// After `changed` was written with `fields`.
    mutating func adopt(_ changed: [Passkey], keyFields fields: [[UInt8]: SealedFields]) {
        (passkeys, keyFields) = (changed, fields)
    }

    /// The stored boxes of `passkey`'s secrets, if they hold these secrets for this credential,
    /// RP and user.
    private func reusableFields(for passkey: Passkey) -> SealedFields? {
        guard let fields = keyFields[passkey.credentialID],
            let stored = passkeys.first(where: { $0.credentialID == passkey.credentialID }),
            stored.metadata.rpID == passkey.metadata.rpID, stored.metadata.userHandle == passkey.metadata.userHandle,
            stored.privateKey.rawRepresentation == passkey.privateKey.rawRepresentation,
            stored.prfSecret == passkey.prfSecret
        else { return nil }
        return fields
    }

    /// `passkey`'s private key and prf secret, raw in a plaintext store, else sealed afresh.
    private func sealedFields(for passkey: Passkey, random: RandomSource) throws(PasskeyStoreError) -> SealedFields {
        let scalar = Array(passkey.privateKey.rawRepresentation)
        guard let encryption else {
            return SealedFields(privateKey: Hex.encode(scalar), prfSecret: passkey.prfSecret.map { Hex.encode($0) })
        }
        let key = try encryption.sealPrivateKey(scalar, for: passkey.metadata, nonce: random.bytes(12))
        let prf = try passkey.prfSecret.map { (secret) throws(PasskeyStoreError) in
            try encryption.sealPRFSecret(secret, for: passkey.metadata, nonce: random.bytes(12))
        }
        return SealedFields(privateKey: Hex.encode(key), prfSecret: prf.map { Hex.encode($0) })
    }

    private var protectionRecord: StoreFileDocument.ProtectionRecord {
        guard let encryption, let check else { return .init(mode: StoreFileDocument.ProtectionRecord.plaintextMode) }
        return .init(
            mode: StoreFileDocument.ProtectionRecord.scryptMode, salt: Hex.encode(encryption.salt),
            scryptN: encryption.parameters.n, scryptR: encryption.parameters.r, scryptP: encryption.parameters.p,
            check: Hex.encode(check))
    }

    private static func unlock(
        _ record: StoreFileDocument.ProtectionRecord, with protection: FilePasskeyStore.Protection,
        reusing: StoreEncryption?
    ) throws(PasskeyStoreError) -> StoreEncryption? {
        switch (record.mode, protection) {
        case (StoreFileDocument.ProtectionRecord.plaintextMode, .insecurePlaintext):
            return nil
        case (StoreFileDocument.ProtectionRecord.plaintextMode, .passphrase):
            throw .notEncrypted
        case (StoreFileDocument.ProtectionRecord.scryptMode, .insecurePlaintext):
            throw .passphraseRequired
        case (StoreFileDocument.ProtectionRecord.scryptMode, .passphrase(let passphrase)):
            guard let salt = record.salt, let n = record.scryptN, let r = record.scryptR, let p = record.scryptP,
                let check = record.check
            else { throw .corrupt(reason: "protection lacks salt, scrypt parameters or check") }
            let parameters = ScryptParameters(n: n, r: r, p: p)
            guard parameters.isAcceptable else { throw .scryptParametersOutOfRange(parameters) }
            let saltBytes = try hex(salt)
            guard saltBytes.count == StoreEncryption.saltLength else { throw .corrupt(reason: "salt length") }
            let encryption =
                if let reusing, reusing.salt == saltBytes, reusing.parameters == parameters { reusing } else {
                    try StoreEncryption(passphrase: passphrase, salt: saltBytes, parameters: parameters)
                }
            guard encryption.verify(check: try hex(check)) else { throw .wrongPassphrase }
            return encryption
        default:
            throw .corrupt(reason: "unknown protection mode \(record.mode)")
        }
    }

    fileprivate static func hex(_ text: String) throws(PasskeyStoreError) -> [UInt8] {
        do { return try Hex.decode(text) } catch { throw .corrupt(reason: "invalid hex") }
    }
}

/// A credential's secret members as written in the file: hex of the raw value (plaintext store)
/// or of its AES-GCM box.
struct SealedFields: Sendable, Equatable {
    var privateKey: String
    var prfSecret: String?
}

extension StoreFileDocument.CredentialRecord {
    init(_ metadata: PasskeyMetadata, _ sealed: SealedFields) {
        self.init(
            id: Hex.encode(metadata.credentialID), rpId: metadata.rpID, rpName: metadata.rpName,
            userHandle: Hex.encode(metadata.userHandle), userName: metadata.userName,
            userDisplayName: metadata.userDisplayName, discoverable: metadata.isDiscoverable,
            signCount: metadata.signCount, created: metadata.createdAt.timeIntervalSince1970,
            privateKey: sealed.privateKey, credProtect: metadata.credentialProtection?.rawValue,
            prfSecret: sealed.prfSecret)
    }

    /// The record's metadata, checked; `index` names it in errors.
    func metadata(index: Int) throws(PasskeyStoreError) -> PasskeyMetadata {
        let id = try StoreFileState.hex(self.id)
        let handle = try StoreFileState.hex(userHandle)
        guard (1...AttestedCredentialData.maximumCredentialIDLength).contains(id.count) else {
            throw .corrupt(reason: "credential \(index) has an ID of \(id.count) bytes")
        }
        guard (1...PublicKeyCredentialUserEntity.maximumIDLength).contains(handle.count) else {
            throw .corrupt(reason: "credential \(index) has a user handle of \(handle.count) bytes")
        }
        guard !rpId.isEmpty, created.isFinite else {
            throw .corrupt(reason: "credential \(index) lacks an RP ID or date")
        }
        let protection = try credProtect.map { (level) throws(PasskeyStoreError) in
            guard let policy = CredentialProtectionPolicy(rawValue: level) else {
                throw .corrupt(reason: "credential \(index) has credProtect \(level)")
            }
            return policy
        }
        return PasskeyMetadata(
            credentialID: id, rpID: rpId, rpName: rpName, userHandle: handle, userName: userName,
            userDisplayName: userDisplayName, signCount: signCount,
            createdAt: Date(timeIntervalSince1970: created), isDiscoverable: discoverable,
            credentialProtection: protection)
    }

    /// The passkey, its key and prf secret opened with `encryption` (sealed for format `version`).
    func passkey(index: Int, encryption: StoreEncryption?, version: Int) throws(PasskeyStoreError) -> Passkey {
        let metadata = try metadata(index: index)
        let stored = try StoreFileState.hex(privateKey)
        let scalar =
            if let encryption { try encryption.openPrivateKey(stored, for: metadata, version: version) } else { stored }
        guard scalar.count == 32, let key = try? P256.Signing.PrivateKey(rawRepresentation: scalar) else {
            throw .corrupt(reason: "credential \(index) has an invalid private key")
        }
        let prfSecret = try self.prfSecret.map { (field) throws(PasskeyStoreError) in
            let stored = try StoreFileState.hex(field)
            let secret =
                if let encryption { try encryption.openPRFSecret(stored, for: metadata, version: version) } else {
                    stored
                }
            guard secret.count == Passkey.prfSecretLength else {
                throw .corrupt(reason: "credential \(index) has an invalid prf secret")
            }
            return secret
        }
        return Passkey(metadata: metadata, privateKey: key, prfSecret: prfSecret)
    }
}
