/// A passkey store that lives only in memory: for tests and demos.
public actor InMemoryPasskeyStore: PasskeyStore {
    private var passkeys: [Passkey]

    /// A store holding `passkeys`, newest first.
    public init(_ passkeys: [Passkey] = []) { self.passkeys = passkeys.sortedNewestFirst() }

    /// Every passkey's metadata, newest first.
    public func list() -> [PasskeyMetadata] { passkeys.map(\.metadata) }

    /// The passkeys for `rpID`, newest first.
    public func passkeys(forRPID rpID: String) -> [Passkey] { passkeys.filter { $0.metadata.rpID == rpID } }

    /// Adds `passkey`, replacing one for the same account (RP ID and user handle).
    public func add(_ passkey: Passkey) { passkeys.insertReplacingSameAccount(passkey) }

    /// Adds one to the passkey's signature counter (it stays at its maximum) and returns the new value.
    public func incrementSignCount(credentialID: [UInt8]) throws(PasskeyStoreError) -> UInt32 {
        guard let index = passkeys.firstIndex(where: { $0.credentialID == credentialID }) else {
            throw .unknownCredential
        }
        let count = passkeys[index].metadata.signCount
        passkeys[index].metadata.signCount = count == .max ? count : count + 1
        return passkeys[index].metadata.signCount
    }

    /// Deletes the passkey; `false` if there was none with this ID.
    @discardableResult
    public func delete(credentialID: [UInt8]) -> Bool {
        let before = passkeys.count
        passkeys.removeAll { $0.credentialID == credentialID }
        return passkeys.count != before
    }
}
