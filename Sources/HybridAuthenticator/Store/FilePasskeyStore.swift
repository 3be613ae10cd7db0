import Crypto
import Foundation
import HybridCore
import HybridLocalFiles

/// A passkey store in one JSON file (format: `StoreFileDocument`), at the path its user chooses
/// (`hybrid-authenticator` chooses `$XDG_DATA_HOME/hybrid-authenticator/passkeys.json`).
///
/// - The file is mode 0600 and its directory, when created here, 0700.
/// - Every change is a read-modify-write under the store's lock (`StoreLock`): it re-reads and
///   re-authenticates the file, applies itself to what it found, and replaces the file atomically
///   and durably (`AtomicFile`). Several processes or instances may change one store: none loses
///   another's change, and a crash loses at most the change being written, never the store.
/// - Reads (``list()``, ``passkeys(forRPID:)``) answer from the state of the last open or change.
/// - Private keys are encrypted with AES-256-GCM under a scrypt key from the passphrase, and the
///   whole file is authenticated by an HMAC (`StoreFileMAC`), unless the store was created in
///   explicit insecure plaintext mode (tests), which has neither.
/// - Opening validates the whole file and decrypts every key. A wrong passphrase, a corrupt or
///   tampered file throws, and nothing is ever written to a file that failed to open or re-read.
public actor FilePasskeyStore: PasskeyStore {
    /// How private keys are kept at rest.
    public enum Protection: Sendable {
        /// Encrypted under a key derived from this passphrase.
        case passphrase(String)
        /// Stored in the clear. For tests only.
        case insecurePlaintext
    }

    /// How an existing store file protects its keys.
    package enum StoredProtection: Hashable, Sendable {
        case encrypted
        case plaintext
    }

    /// Largest store file read, in bytes (8 MiB, some ten thousand passkeys).
    package static let maximumFileSize = 8 << 20

    /// The store file.
    public nonisolated let path: String
    /// Whether private keys are encrypted at rest.
    public nonisolated var isEncrypted: Bool {
        if case .passphrase = protection { true } else { false }
    }

    /// Kept (passphrase included) to open the file again under the lock before every change,
    /// including one another process created with its own salt.
    private nonisolated let protection: Protection
    private let random: RandomSource
    private(set) var state: StoreFileState

    /// Opens the store at `path`, or prepares a new one there (written on the first change).
    /// - Parameters:
    ///   - path: the store file.
    ///   - protection: how the keys are protected: a passphrase, or plaintext for tests.
    ///   - newStoreParameters: scrypt cost for a store created now; an existing file keeps its own.
    ///   - random: salts, nonces and temporary file names.
    public init(
        path: String, protection: Protection, newStoreParameters: ScryptParameters = .recommended,
        random: RandomSource = .system
    ) throws(PasskeyStoreError) {
        self.path = path
        self.protection = protection
        self.random = random
        if let bytes = try AtomicFile.contents(atPath: path, limit: Self.maximumFileSize) {
            state = try StoreFileState(reading: bytes, protection: protection, reusing: nil)
        } else {
            state = try StoreFileState(newWith: protection, parameters: newStoreParameters, random: random)
        }
    }

    // MARK: PasskeyStore

    /// Every passkey's metadata, newest first.
    public func list() -> [PasskeyMetadata] { state.passkeys.map(\.metadata) }

    /// The passkeys for `rpID`, newest first.
    public func passkeys(forRPID rpID: String) -> [Passkey] { state.passkeys.filter { $0.metadata.rpID == rpID } }

    /// Adds `passkey` (replacing one for the same account) and saves the file.
    public func add(_ passkey: Passkey) throws(PasskeyStoreError) {
        try change { (passkeys) throws(PasskeyStoreError) in
            passkeys.insertReplacingSameAccount(passkey)
            return ((), true)
        }
    }

    /// Adds one to the passkey's signature counter, saves the file, and returns the new value.
    public func incrementSignCount(credentialID: [UInt8]) throws(PasskeyStoreError) -> UInt32 {
        try change { (passkeys) throws(PasskeyStoreError) in
            guard let index = passkeys.firstIndex(where: { $0.credentialID == credentialID }) else {
                throw .unknownCredential
            }
            let count = passkeys[index].metadata.signCount
            passkeys[index].metadata.signCount = count == .max ? count : count + 1
            return (passkeys[index].metadata.signCount, true)
        }
    }

    /// Deletes the passkey and saves the file; `false` if there was none with this ID.
    @discardableResult
    public func delete(credentialID: [UInt8]) throws(PasskeyStoreError) -> Bool {
        try change { (passkeys) throws(PasskeyStoreError) in
            let before = passkeys.count
            passkeys.removeAll { $0.credentialID == credentialID }
            return (passkeys.count != before, passkeys.count != before)
        }
    }

    /// The read-modify-write of every change: under the lock, re-read the file (a missing file
    /// is an empty store), let `apply` edit its passkeys, and write them back if it says so.
    /// Memory follows the file: on failure it holds what was read, or what it held before.
    func change<Value>(
        _ apply: (inout [Passkey]) throws(PasskeyStoreError) -> (result: Value, write: Bool)
    ) throws(PasskeyStoreError) -> Value {
        try changeFile(sealingWallet: false) { (passkeys, _) throws(PasskeyStoreError) in try apply(&passkeys) }
    }

    /// ``change(_:)`` over the passkeys and the wallet; the wallet section is sealed again and
    /// written when `sealingWallet`, else kept as it was read.
    func changeFile<Value>(
        sealingWallet: Bool,
        _ apply: (inout [Passkey], inout WalletContents) throws(PasskeyStoreError) -> (result: Value, write: Bool)
    ) throws(PasskeyStoreError) -> Value {
        let directory = AtomicFile.split(path).directory
        if !FileManager.default.fileExists(atPath: directory) {
            // No directory, so no store (and no lock file): create them only for a write.
            state.forgetPasskeys()
            var passkeys: [Passkey] = []
            var wallet = WalletContents()
            let (result, write) = try apply(&passkeys, &wallet)
            guard write else { return result }
            try AtomicFile.createDirectory(directory)
        }
        return try StoreLock.withExclusiveLock(of: path) { () throws(PasskeyStoreError) -> Value in
            if let bytes = try AtomicFile.contents(atPath: path, limit: Self.maximumFileSize) {
                state = try StoreFileState(reading: bytes, protection: protection, reusing: state.encryption)
            } else {
                state.forgetPasskeys()
            }
            var passkeys = state.passkeys
            var wallet = state.wallet
            let (result, write) = try apply(&passkeys, &wallet)
            guard write else { return result }
            let section = sealingWallet ? try state.sealedWallet(wallet, random: random) : nil
            let (bytes, keyFields) = try state.encoded(passkeys, wallet: section, random: random)
            try AtomicFile.removeTemporaryFiles(for: path)
            try AtomicFile.replace(atPath: path, with: bytes, temporarySuffix: Hex.encode(random.bytes(8)))
            state.adopt(passkeys, keyFields: keyFields)
            if let section { state.adoptWallet(wallet, section: section) }
            return result
        }
    }

    // MARK: Passphrase

    /// Whether `candidate` is the store's passphrase (always false for a plaintext store).
    /// Costs one scrypt derivation; the check compares AES-GCM tags, not strings.
    public func verifyPassphrase(_ candidate: String) -> Bool {
        guard let encryption = state.encryption, let check = state.check,
            let derived = try? StoreEncryption(
                passphrase: candidate, salt: encryption.salt, parameters: encryption.parameters)
        else { return false }
        return derived.verify(check: check)
    }

    /// The scrypt cost of the open store (of the file, or the one a new store will be written
    /// with); `nil` for a plaintext store.
    package var scryptParameters: ScryptParameters? { state.encryption?.parameters }

    // MARK: Without unlocking

    /// How the store at `path` protects its keys, or `nil` when there is no file.
    package static func storedProtection(atPath path: String) throws(PasskeyStoreError) -> StoredProtection? {
        guard let bytes = try AtomicFile.contents(atPath: path, limit: maximumFileSize) else { return nil }
        let mode = try StoreFileDocument.decode(bytes).protection.mode
        switch mode {
        case StoreFileDocument.ProtectionRecord.plaintextMode: return .plaintext
        case StoreFileDocument.ProtectionRecord.scryptMode: return .encrypted
        default: throw .corrupt(reason: "unknown protection mode \(mode)")
        }
    }

    /// The metadata of every passkey in the file, newest first, without a passphrase, so without
    /// checking the file's MAC: for display only.
    package static func metadata(atPath path: String) throws(PasskeyStoreError) -> [PasskeyMetadata] {
        guard let bytes = try AtomicFile.contents(atPath: path, limit: maximumFileSize) else { return [] }
        var list: [PasskeyMetadata] = []
        for (index, record) in try StoreFileDocument.decode(bytes).credentials.enumerated() {
            list.append(try record.metadata(index: index))
        }
        return list.sorted { $0.createdAt > $1.createdAt }
    }
}
