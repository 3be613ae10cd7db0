import Foundation

extension FilePasskeyStore {
    /// Adds `passkeys` in one write, or none of them.
    ///
    /// Under the store's lock, the file is re-read; if a passkey clashes with a stored one (same
    /// credential ID, or another discoverable passkey of the same account) and
    /// `replacing` is false, nothing is written and the clashes are returned. Otherwise all are
    /// added, replacing what they clash with, in one atomic replacement of the file.
    package func importPasskeys(_ passkeys: [Passkey], replacing: Bool) throws(PasskeyStoreError)
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
    package func allPasskeys() -> [Passkey] {
        var seen = Set<String>()
        var passkeys: [Passkey] = []
        for metadata in list() where seen.insert(metadata.rpID).inserted {
            passkeys += self.passkeys(forRPID: metadata.rpID)
        }
        return passkeys.sortedNewestFirst()
    }
}

/// Why an import changed nothing.
package enum PasskeyImportError: Error, Hashable, Sendable {
    /// The document is not valid CXF 1.0, or a passkey in it cannot be kept here.
    case document(CXFError)
    /// The store could not be read or written.
    case store(PasskeyStoreError)
}

/// What an import read and did.
package struct PasskeyImportReport: Sendable {
    /// The passkeys read, what was skipped and what was dropped.
    package let plan: PasskeyImport
    /// What happened to the store.
    package let outcome: PasskeyImportOutcome
}

extension FilePasskeyStore {
    /// Reads a CXF document and adds its passkeys, all or none: a document with any invalid
    /// member, or a clash without `replacing`, leaves the store file exactly as it was.
    /// - Parameters:
    ///   - bytes: the CXF 1.0 JSON document.
    ///   - replacing: whether imported passkeys replace clashing stored ones.
    ///   - now: the creation time of passkeys whose item has no `creationAt`.
    ///   - sizeLimit: the largest document read.
    package func importCXF(
        _ bytes: [UInt8], replacing: Bool, now: Date, sizeLimit: Int = CXFDocument.defaultSizeLimit
    ) throws(PasskeyImportError) -> PasskeyImportReport {
        let document: CXFDocument
        do { document = try CXFDocument(bytes: bytes, sizeLimit: sizeLimit) } catch { throw .document(error) }
        let plan = PasskeyImport(document: document, now: now)
        do {
            return PasskeyImportReport(plan: plan, outcome: try importPasskeys(plan.passkeys, replacing: replacing))
        } catch {
            throw .store(error)
        }
    }
}
