import Crypto

/// Maps tunnel-server domain IDs to host names (protocol.md §4).
///
/// Chromium: `tunnelserver::DecodeDomain`.
package enum TunnelServerDomain {
    /// Host names of the assigned domain IDs, indexed by ID.
    package static let assignedHosts: [String] = ["cable.ua5v.com", "cable.auth.com"]

    /// The host name for a valid domain ID: an assigned name for 0 and 1, a hashed name for IDs ≥ 256.
    package static func host(for id: TunnelDomainID) -> String {
        if id.rawValue < assignedHosts.count { return assignedHosts[Int(id.rawValue)] }
        return hashedHost(id.rawValue)
    }

    /// The host name for a raw 16-bit domain ID, or `nil` for the unassigned IDs 2–255.
    package static func host(for rawID: UInt16) -> String? {
        TunnelDomainID(rawValue: rawID).map { host(for: $0) }
    }

    private static let hashPrefix = Array("caBLEv2 tunnel server domain".utf8)
    private static let topLevelDomains = ["com", "org", "net", "info"]
    private static let base32Alphabet = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)

    /// §4.2: SHA-256("caBLEv2 tunnel server domain" || LE16(id) || 0x00), first 8 bytes as LE64,
    /// 2 bits choose the TLD, the rest are base32 digits, least significant first.
    private static func hashedHost(_ id: UInt16) -> String {
        let input = hashPrefix + [UInt8(truncatingIfNeeded: id), UInt8(truncatingIfNeeded: id >> 8), 0]
        let digest = Array(SHA256.hash(data: input))
        var value: UInt64 = 0
        for (index, byte) in digest.prefix(8).enumerated() { value |= UInt64(byte) << (8 * index) }
        let tld = topLevelDomains[Int(value & 3)]
        value >>= 2
        var label: [UInt8] = []
        while value != 0 {
            label.append(base32Alphabet[Int(value & 31)])
            value >>= 5
        }
        return "cable." + String(decoding: label, as: UTF8.self) + "." + tld
    }
}

extension TunnelDomainID {
    /// This domain's host name (protocol.md §4).
    package var host: String { TunnelServerDomain.host(for: self) }
}
