import Crypto
import Foundation
import HybridCore

/// A passkey store in one JSON file (format: ``StoreFileDocument``), by default
/// `$XDG_DATA_HOME/hybrid-authenticator/passkeys.json`.
///
/// - The file is mode 0600 and its directory, when created here, 0700.
/// - Every change rewrites the file atomically and durably (``AtomicFile``): a crash loses at
///   most the change being written, never the store.
/// - Private keys are encrypted with AES-256-GCM under a scrypt key from the passphrase, unless
///   the store was created in explicit insecure plaintext mode (tests).
/// - Opening validates the whole file and decrypts every key. A wrong passphrase or a corrupt
///   file throws, and nothing is ever written to a file that failed to open.
/// - One process should use a store at a time; concurrent writers do not merge their changes.
public actor FilePasskeyStore: PasskeyStore {
    /// How private keys are kept at rest.
    public enum Protection: Sendable {
        /// Encrypted under a key derived from this passphrase.
        case passphrase(String)
        /// Stored in the clear. For tests only.
        case insecurePlaintext
    }

    /// How an existing store file protects its keys.
    public enum StoredProtection: Hashable, Sendable {
        case encrypted
        case plaintext
    }

    /// The store file.
    public nonisolated let path: String
    /// Whether private keys are encrypted at rest.
    public nonisolated var isEncrypted: Bool { encryption != nil }

    private nonisolated let encryption: StoreEncryption?
    private let check: [UInt8]?
    private let random: RandomSource
    private var passkeys: [Passkey]
    /// The `privateKey` field last written for each credential, so unchanged keys keep their box.
    private var storedKeyFields: [[UInt8]: String]
    /// The `prfSecret` field last written for each credential that has one, likewise.
    private var storedPRFFields: [[UInt8]: String] = [:]

    /// Opens the store at `path`, or prepares a new one there (written on the first change).
    /// - Parameters:
    ///   - newStoreParameters: scrypt cost for a store created now; an existing file keeps its own.
    ///   - random: salts, nonces and temporary file names.
    public init(
        path: String, protection: Protection, newStoreParameters: ScryptParameters = .recommended,
        random: RandomSource = .system
    ) throws(PasskeyStoreError) {
        self.path = path
        self.random = random
        guard let bytes = try AtomicFile.contents(atPath: path) else {
            switch protection {
            case .insecurePlaintext:
                (encryption, check) = (nil, nil)
            case .passphrase(let passphrase):
                guard newStoreParameters.isAcceptable else { throw .corrupt(reason: "unacceptable scrypt parameters") }
                let encryption = try StoreEncryption(
                    passphrase: passphrase, salt: random.bytes(StoreEncryption.saltLength), parameters: newStoreParameters)
                (self.encryption, check) = (encryption, try encryption.makeCheck(nonce: random.bytes(12)))
            }
            (passkeys, storedKeyFields) = ([], [:])
            return
        }
        let document = try StoreFileDocument.decode(bytes)
        let encryption = try Self.unlock(document.protection, with: protection)
        (self.encryption, check) = (encryption, try document.protection.check.map(Self.hex))
        var passkeys: [Passkey] = []
        var fields: [[UInt8]: String] = [:]
        var prfFields: [[UInt8]: String] = [:]
        for (index, record) in document.credentials.enumerated() {
            let passkey = try Self.passkey(from: record, index: index, encryption: encryption)
            guard fields[passkey.credentialID] == nil else { throw .corrupt(reason: "credential \(index) repeats an ID") }
            fields[passkey.credentialID] = record.privateKey
            prfFields[passkey.credentialID] = record.prfSecret
            passkeys.append(passkey)
        }
        storedPRFFields = prfFields
        (self.passkeys, storedKeyFields) = (passkeys.sortedNewestFirst(), fields)
    }

    // MARK: PasskeyStore

    public func list() -> [PasskeyMetadata] { passkeys.map(\.metadata) }

    public func passkeys(forRPID rpID: String) -> [Passkey] { passkeys.filter { $0.metadata.rpID == rpID } }

    public func add(_ passkey: Passkey) throws(PasskeyStoreError) {
        var changed = passkeys
        changed.insertReplacingSameAccount(passkey)
        try save(changed)
    }

    public func incrementSignCount(credentialID: [UInt8]) throws(PasskeyStoreError) -> UInt32 {
        guard let index = passkeys.firstIndex(where: { $0.credentialID == credentialID }) else { throw .unknownCredential }
        var changed = passkeys
        let count = changed[index].metadata.signCount
        changed[index].metadata.signCount = count == .max ? count : count + 1
        try save(changed)
        return changed[index].metadata.signCount
    }

    @discardableResult
    public func delete(credentialID: [UInt8]) throws(PasskeyStoreError) -> Bool {
        guard passkeys.contains(where: { $0.credentialID == credentialID }) else { return false }
        try save(passkeys.filter { $0.credentialID != credentialID })
        return true
    }

    // MARK: Passphrase

    /// Whether `candidate` is the store's passphrase (always false for a plaintext store).
    /// Costs one scrypt derivation; the check compares AES-GCM tags, not strings.
    public func verifyPassphrase(_ candidate: String) -> Bool {
        guard let encryption, let check,
            let derived = try? StoreEncryption(passphrase: candidate, salt: encryption.salt, parameters: encryption.parameters)
        else { return false }
        return derived.verify(check: check)
    }

    // MARK: Without unlocking

    /// The default location: `$XDG_DATA_HOME/hybrid-authenticator/passkeys.json`, where an
    /// unset, empty or relative `XDG_DATA_HOME` means `~/.local/share`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        var base = environment["XDG_DATA_HOME"] ?? ""
        if !base.hasPrefix("/") {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            base = home + "/.local/share"
        }
        return base + "/hybrid-authenticator/passkeys.json"
    }

    /// How the store at `path` protects its keys, or `nil` when there is no file.
    public static func storedProtection(atPath path: String) throws(PasskeyStoreError) -> StoredProtection? {
        guard let bytes = try AtomicFile.contents(atPath: path) else { return nil }
        let mode = try StoreFileDocument.decode(bytes).protection.mode
        switch mode {
        case StoreFileDocument.ProtectionRecord.plaintextMode: return .plaintext
        case StoreFileDocument.ProtectionRecord.scryptMode: return .encrypted
        default: throw .corrupt(reason: "unknown protection mode \(mode)")
        }
    }

    /// The metadata of every passkey in the file, newest first, without a passphrase.
    public static func metadata(atPath path: String) throws(PasskeyStoreError) -> [PasskeyMetadata] {
        guard let bytes = try AtomicFile.contents(atPath: path) else { return [] }
        var list: [PasskeyMetadata] = []
        for (index, record) in try StoreFileDocument.decode(bytes).credentials.enumerated() {
            list.append(try metadata(from: record, index: index))
        }
        return list.sorted { $0.createdAt > $1.createdAt }
    }

    // MARK: Reading

    private static func unlock(_ record: StoreFileDocument.ProtectionRecord, with protection: Protection) throws(PasskeyStoreError) -> StoreEncryption? {
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
            guard parameters.isAcceptable else { throw .corrupt(reason: "unacceptable scrypt parameters") }
            let saltBytes = try hex(salt)
            guard saltBytes.count == StoreEncryption.saltLength else { throw .corrupt(reason: "salt length") }
            let encryption = try StoreEncryption(passphrase: passphrase, salt: saltBytes, parameters: parameters)
            guard encryption.verify(check: try hex(check)) else { throw .wrongPassphrase }
            return encryption
        default:
            throw .corrupt(reason: "unknown protection mode \(record.mode)")
        }
    }

    private static func metadata(from record: StoreFileDocument.CredentialRecord, index: Int) throws(PasskeyStoreError) -> PasskeyMetadata {
        let id = try hex(record.id)
        let handle = try hex(record.userHandle)
        guard (1...AttestedCredentialData.maximumCredentialIDLength).contains(id.count) else {
            throw .corrupt(reason: "credential \(index) has an ID of \(id.count) bytes")
        }
        guard (1...PublicKeyCredentialUserEntity.maximumIDLength).contains(handle.count) else {
            throw .corrupt(reason: "credential \(index) has a user handle of \(handle.count) bytes")
        }
        guard !record.rpId.isEmpty, record.created.isFinite else { throw .corrupt(reason: "credential \(index) lacks an RP ID or date") }
        let protection = try record.credProtect.map { (level) throws(PasskeyStoreError) in
            guard let policy = CredentialProtectionPolicy(rawValue: level) else {
                throw .corrupt(reason: "credential \(index) has credProtect \(level)")
            }
            return policy
        }
        return PasskeyMetadata(
            credentialID: id, rpID: record.rpId, rpName: record.rpName, userHandle: handle, userName: record.userName,
            userDisplayName: record.userDisplayName, signCount: record.signCount,
            createdAt: Date(timeIntervalSince1970: record.created), isDiscoverable: record.discoverable,
            credentialProtection: protection)
    }

    private static func passkey(
        from record: StoreFileDocument.CredentialRecord, index: Int, encryption: StoreEncryption?
    ) throws(PasskeyStoreError) -> Passkey {
        let metadata = try metadata(from: record, index: index)
        let stored = try hex(record.privateKey)
        let scalar = try encryption.map { (encryption) throws(PasskeyStoreError) in try encryption.openPrivateKey(stored, for: metadata) } ?? stored
        guard scalar.count == 32, let key = try? P256.Signing.PrivateKey(rawRepresentation: scalar) else {
            throw .corrupt(reason: "credential \(index) has an invalid private key")
        }
        let prfSecret = try record.prfSecret.map { (field) throws(PasskeyStoreError) in
            let stored = try hex(field)
            let secret = try encryption.map { (encryption) throws(PasskeyStoreError) in try encryption.openPRFSecret(stored, for: metadata) } ?? stored
            guard secret.count == Passkey.prfSecretLength else { throw .corrupt(reason: "credential \(index) has an invalid prf secret") }
            return secret
        }
        return Passkey(metadata: metadata, privateKey: key, prfSecret: prfSecret)
    }

    private static func hex(_ text: String) throws(PasskeyStoreError) -> [UInt8] {
        do { return try Hex.decode(text) } catch { throw .corrupt(reason: "invalid hex") }
    }

    // MARK: Writing

    /// Writes `changed` durably, then adopts it; on failure memory and file stay as they were.
    private func save(_ changed: [Passkey]) throws(PasskeyStoreError) {
        var fields: [[UInt8]: String] = [:]
        var prfFields: [[UInt8]: String] = [:]
        var records: [StoreFileDocument.CredentialRecord] = []
        for passkey in changed {
            var field = storedKeyFields[passkey.credentialID] ?? ""
            if field.isEmpty { field = try keyField(for: passkey) }
            fields[passkey.credentialID] = field
            var prfField = storedPRFFields[passkey.credentialID]
            if prfField == nil, let secret = passkey.prfSecret { prfField = try prfSecretField(secret, for: passkey) }
            prfFields[passkey.credentialID] = prfField
            let metadata = passkey.metadata
            records.append(StoreFileDocument.CredentialRecord(
                id: Hex.encode(metadata.credentialID), rpId: metadata.rpID, rpName: metadata.rpName,
                userHandle: Hex.encode(metadata.userHandle), userName: metadata.userName,
                userDisplayName: metadata.userDisplayName, discoverable: metadata.isDiscoverable,
                signCount: metadata.signCount, created: metadata.createdAt.timeIntervalSince1970, privateKey: field,
                credProtect: metadata.credentialProtection?.rawValue, prfSecret: prfField))
        }
        let document = StoreFileDocument(
            format: StoreFileDocument.formatName, version: StoreFileDocument.currentVersion,
            protection: protectionRecord, credentials: records)
        try AtomicFile.createDirectory(AtomicFile.split(path).directory)
        try AtomicFile.replace(atPath: path, with: document.encoded(), temporarySuffix: Hex.encode(random.bytes(8)))
        passkeys = changed
        storedKeyFields = fields
        storedPRFFields = prfFields
    }

    private func keyField(for passkey: Passkey) throws(PasskeyStoreError) -> String {
        let scalar = Array(passkey.privateKey.rawRepresentation)
        guard let encryption else { return Hex.encode(scalar) }
        return Hex.encode(try encryption.sealPrivateKey(scalar, for: passkey.metadata, nonce: random.bytes(12)))
    }

    private func prfSecretField(_ secret: [UInt8], for passkey: Passkey) throws(PasskeyStoreError) -> String {
        guard let encryption else { return Hex.encode(secret) }
        return Hex.encode(try encryption.sealPRFSecret(secret, for: passkey.metadata, nonce: random.bytes(12)))
    }

    private var protectionRecord: StoreFileDocument.ProtectionRecord {
        guard let encryption, let check else { return .init(mode: StoreFileDocument.ProtectionRecord.plaintextMode) }
        return .init(
            mode: StoreFileDocument.ProtectionRecord.scryptMode, salt: Hex.encode(encryption.salt),
            scryptN: encryption.parameters.n, scryptR: encryption.parameters.r, scryptP: encryption.parameters.p,
            check: Hex.encode(check))
    }
}
