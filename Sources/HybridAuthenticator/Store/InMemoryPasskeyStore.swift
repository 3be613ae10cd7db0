/// A passkey store that lives only in memory: for tests and demos.
public actor InMemoryPasskeyStore: PasskeyStore {
    private var passkeys: [Passkey]

    public init(_ passkeys: [Passkey] = []) { self.passkeys = passkeys.sortedNewestFirst() }

    public func list() -> [PasskeyMetadata] { passkeys.map(\.metadata) }

    public func passkeys(forRPID rpID: String) -> [Passkey] { passkeys.filter { $0.metadata.rpID == rpID } }

    public func add(_ passkey: Passkey) { passkeys.insertReplacingSameAccount(passkey) }

    public func incrementSignCount(credentialID: [UInt8]) throws(PasskeyStoreError) -> UInt32 {
        guard let index = passkeys.firstIndex(where: { $0.credentialID == credentialID }) else { throw .unknownCredential }
        let count = passkeys[index].metadata.signCount
        passkeys[index].metadata.signCount = count == .max ? count : count + 1
        return passkeys[index].metadata.signCount
    }

    @discardableResult
    public func delete(credentialID: [UInt8]) -> Bool {
        let before = passkeys.count
        passkeys.removeAll { $0.credentialID == credentialID }
        return passkeys.count != before
    }
}
