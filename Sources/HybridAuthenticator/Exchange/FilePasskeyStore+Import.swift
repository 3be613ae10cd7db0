extension FilePasskeyStore {
    /// Adds `passkeys` in one write, or none of them.
    ///
    /// Under the store's lock, the file is re-read; if a passkey clashes with a stored one (same
    /// credential ID, or another discoverable passkey of the same account) and
    /// `replacing` is false, nothing is written and the clashes are returned. Otherwise all are
    /// added, replacing what they clash with, in one atomic replacement of the file.
    public func importPasskeys(_ passkeys: [Passkey], replacing: Bool) throws(PasskeyStoreError)
        -> PasskeyImportOutcome
    {
        try change { (stored) throws(PasskeyStoreError) in
            let conflicts = stored.importConflicts(with: passkeys)
            guard conflicts.isEmpty || replacing else { return (.refused(conflicts), false) }
            guard !passkeys.isEmpty else { return (.imported(count: 0, replaced: 0), false) }
            for passkey in passkeys.reversed() { stored.insertReplacingSameAccount(passkey) }
            stored = stored.sortedNewestFirst()
            return (.imported(count: passkeys.count, replaced: conflicts.count), true)
        }
    }

    /// Every passkey with its keys, newest first: what an export reads.
    public func allPasskeys() -> [Passkey] {
        var seen = Set<String>()
        var passkeys: [Passkey] = []
        for metadata in list() where seen.insert(metadata.rpID).inserted {
            passkeys += self.passkeys(forRPID: metadata.rpID)
        }
        return passkeys.sortedNewestFirst()
    }
}
