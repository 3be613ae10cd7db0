import HybridCore

/// Credential IDs the phone returned through the key, per RP ID hash: what lets
/// ``BridgeRequestPolicy`` claim the right ID in a silent probe when a site lists several.
/// IDs and hashes only, nothing secret; bounded (least recently used forgotten first). A value
/// type: the policy holds it, ``KnownCredentialsFile`` persists it.
package struct KnownCredentials: Hashable, Sendable {
    /// Relying parties remembered, most recent first.
    package static let maximumRelyingParties = 64
    /// IDs remembered per relying party (several phones, several accounts).
    package static let maximumIDsPerRelyingParty = 16
    /// Longer IDs are not remembered (``SecurityKeyInfo/maxCredentialIDLength``).
    package static let maximumIDLength = Int(SecurityKeyInfo.maxCredentialIDLength)

    struct Entry: Hashable, Sendable {
        var rpIDHash: [UInt8]
        /// Most recent first.
        var ids: [[UInt8]]
    }

    /// Most recent first.
    private(set) var entries: [Entry] = []

    /// Nothing remembered.
    package init() {}

    /// Whether the phone returned `id` for the RP whose ID hashes to `rpIDHash`.
    package func contains(_ id: [UInt8], rpIDHash: [UInt8]) -> Bool {
        entries.first { $0.rpIDHash == rpIDHash }?.ids.contains(id) == true
    }

    /// Remembers `id` for `rpIDHash` as the most recent.
    /// - Returns: whether anything changed (the caller persists then).
    @discardableResult
    package mutating func remember(_ id: [UInt8], rpIDHash: [UInt8]) -> Bool {
        guard rpIDHash.count == 32, !id.isEmpty, id.count <= Self.maximumIDLength else { return false }
        var entry = Entry(rpIDHash: rpIDHash, ids: [])
        if let index = entries.firstIndex(where: { $0.rpIDHash == rpIDHash }) {
            if index == 0, entries[0].ids.first == id { return false }
            entry = entries.remove(at: index)
        }
        entry.ids.removeAll { $0 == id }
        entry.ids.insert(id, at: 0)
        entry.ids = Array(entry.ids.prefix(Self.maximumIDsPerRelyingParty))
        entries.insert(entry, at: 0)
        entries = Array(entries.prefix(Self.maximumRelyingParties))
        return true
    }

    // MARK: - File form

    static let header = "# hybrid-security-key known credential IDs v1: rpIdHash then IDs, hex, most recent first"

    /// The text form: a header line, then one line per RP, `rpIdHash id id …` in lowercase hex.
    package var serialized: [UInt8] {
        var text = Self.header + "\n"
        for entry in entries {
            text += ([entry.rpIDHash] + entry.ids).map { Hex.encode($0) }.joined(separator: " ") + "\n"
        }
        return Array(text.utf8)
    }

    /// Reads ``serialized`` text. Lines that do not parse are skipped (a damaged file loses
    /// those lines, nothing else); the bounds are applied as if the IDs were remembered anew.
    package init(serialized bytes: [UInt8]) {
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
        for line in lines.reversed() where !line.hasPrefix("#") {
            let fields = line.split(separator: " ").map { try? Hex.decode($0) }
            guard fields.count >= 2, let rpIDHash = fields[0], rpIDHash.count == 32 else { continue }
            for id in fields.dropFirst().reversed() {
                if let id { remember(id, rpIDHash: rpIDHash) }
            }
        }
    }
}
