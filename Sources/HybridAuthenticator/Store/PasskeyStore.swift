import HybridLocalFiles

/// Where the authenticator keeps its passkeys.
///
/// Implementations serialize their own access (``FilePasskeyStore`` and
/// ``InMemoryPasskeyStore`` are actors) and apply every change durably before returning.
public protocol PasskeyStore: Sendable {
    /// Every passkey's metadata, newest first.
    func list() async throws(PasskeyStoreError) -> [PasskeyMetadata]

    /// The passkeys of `rpID` with their private keys, newest first.
    func passkeys(forRPID rpID: String) async throws(PasskeyStoreError) -> [Passkey]

    /// Adds `passkey`. A discoverable passkey replaces any discoverable passkey with the same
    /// RP ID and user handle, in the same write (CTAP 2.1 §6.1.2: a new resident credential for
    /// an account overwrites the old one).
    func add(_ passkey: Passkey) async throws(PasskeyStoreError)

    /// Adds one to the passkey's signature counter (saturating), stores it and returns it.
    func incrementSignCount(credentialID: [UInt8]) async throws(PasskeyStoreError) -> UInt32

    /// Removes the passkey; returns whether it existed.
    @discardableResult
    func delete(credentialID: [UInt8]) async throws(PasskeyStoreError) -> Bool
}

/// Why the passkey store cannot be opened or changed. A store that fails to open is never
/// written to, so the file stays exactly as it was.
public enum PasskeyStoreError: Error, Hashable, Sendable {
    /// The passphrase does not open the store.
    case wrongPassphrase
    /// The store is encrypted, but it was opened without a passphrase.
    case passphraseRequired
    /// The store is in insecure plaintext mode, but it was opened with a passphrase.
    case notEncrypted
    /// The file is not a valid passkey store; `reason` says what is wrong. It is left untouched.
    case corrupt(reason: String)
    /// The file was written by a newer version of this program.
    case unsupportedVersion(Int)
    /// The file does not authenticate under the passphrase's key: something in it (a signature
    /// counter, an RP ID, a private key, any field) was changed without the passphrase. It is
    /// left untouched.
    case authenticationFailed
    /// The scrypt parameters are outside `ScryptParameters/isAcceptable`'s range (too weak,
    /// or costly enough to exhaust memory or time), whether read from the file or asked for.
    case scryptParametersOutOfRange(ScryptParameters)
    /// The file is larger than `FilePasskeyStore/maximumFileSize` bytes.
    case tooLarge(limit: Int)
    /// No passkey has this credential ID.
    case unknownCredential
    /// A system call failed: `operation` on `path` with `errno`.
    case io(operation: String, path: String, errno: Int32)
    /// The store file or its lock file at `path` was not opened: a symbolic link, a FIFO or
    /// device, another user's file or one others may write.
    case refusedFile(path: String, FileRefusal)
}

/// Shared rules of the stores over an in-memory list, newest first.
extension Array where Element == Passkey {
    mutating func insertReplacingSameAccount(_ passkey: Passkey) {
        if passkey.metadata.isDiscoverable {
            removeAll {
                $0.metadata.isDiscoverable && $0.metadata.rpID == passkey.metadata.rpID
                    && $0.metadata.userHandle == passkey.metadata.userHandle
            }
        }
        removeAll { $0.credentialID == passkey.credentialID }
        insert(passkey, at: 0)
    }

    func sortedNewestFirst() -> [Passkey] {
        enumerated().sorted {
            $0.element.metadata.createdAt != $1.element.metadata.createdAt
                ? $0.element.metadata.createdAt > $1.element.metadata.createdAt : $0.offset < $1.offset
        }.map(\.element)
    }
}
