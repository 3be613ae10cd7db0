import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// The proxies whose PROXY protocol headers the relay believes (`RelayConfiguration.trustedProxies`,
/// `--proxy-protocol-from`): IPv4 and IPv6 CIDR blocks, matched against a connection's peer
/// address. A header is a claim by whoever opened the connection; only a peer in this set may make
/// it. The empty set trusts nobody. Pure: text and address bytes in, a decision out.
///
/// An IPv4-mapped IPv6 peer (`::ffff:a.b.c.d`, an IPv4 client of a dual-stack listener) is
/// matched as the IPv4 address it carries, so `127.0.0.1/32` covers `::ffff:127.0.0.1`; an IPv4
/// block written in that form (`::ffff:10.0.0.0/104`) is stored as the IPv4 block it names
/// (`10.0.0.0/8`). `0.0.0.0/0` is every IPv4 peer, `::/0` every other IPv6 peer.
package struct TrustedProxySet: Sendable, Equatable, CustomStringConvertible {
    /// One CIDR block: the network's address bytes (4 or 16, host bits zero) and its prefix length.
    struct Block: Sendable, Equatable, CustomStringConvertible {
        let network: [UInt8]
        let prefixLength: Int

        /// Whether `address` (as many bytes as ``network``) starts with this block's prefix.
        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == network.count else { return false }
            let wholeBytes = prefixLength / 8
            guard address[..<wholeBytes] == network[..<wholeBytes] else { return false }
            let remainingBits = prefixLength % 8
            guard remainingBits > 0 else { return true }
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - remainingBits))
            return address[wholeBytes] & mask == network[wholeBytes]
        }

        var description: String { TrustedProxySet.format(network) + "/" + String(prefixLength) }
    }

    /// The blocks, in the order they were written.
    let blocks: [Block]

    /// The set that trusts no peer.
    package init() {
        blocks = []
    }

    /// Parses `CIDR[,CIDR…]`: each entry an IPv4 or IPv6 address with an optional `/prefix`
    /// (a bare address is a /32 or /128); spaces around entries are ignored.
    ///
    /// - Throws: ``TrustedProxySetError`` naming the first entry that is not a CIDR block: an
    ///   empty list or entry, an address that is not a plain IPv4 dotted quad or IPv6 address, a
    ///   prefix length that is not a decimal number within the family's width, or an address with
    ///   bits set after the prefix (`10.0.0.1/8`, most likely a typo for a single host).
    package init(parsing list: String) throws(TrustedProxySetError) {
        guard !list.allSatisfy(\.isWhitespace) else { throw .empty }
        var blocks: [Block] = []
        for (index, raw) in list.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
            let entry = raw.trimmingWhitespace()
            guard !entry.isEmpty else { throw .emptyEntry(position: index + 1) }
            blocks.append(try Self.block(parsing: entry))
        }
        self.blocks = blocks
    }

    /// Whether no peer is trusted.
    package var isEmpty: Bool { blocks.isEmpty }

    /// Whether the peer at `address` is a trusted proxy; never for a Unix socket.
    package func contains(_ address: SocketAddress) -> Bool {
        switch address {
        case .v4(let v4):
            var raw = v4.address.sin_addr
            return contains(address: withUnsafeBytes(of: &raw) { Array($0) })
        case .v6(let v6):
            var raw = v6.address.sin6_addr
            return contains(address: withUnsafeBytes(of: &raw) { Array($0) })
        case .unixDomainSocket:
            return false
        }
    }

    /// Whether the address with these bytes (4 for IPv4, 16 for IPv6, network order) is trusted.
    func contains(address bytes: [UInt8]) -> Bool {
        let address = Self.unmapped(bytes) ?? bytes
        return blocks.contains { $0.contains(address) }
    }

    /// The blocks, comma-separated, as ``init(parsing:)`` reads them back.
    package var description: String { blocks.map(\.description).joined(separator: ",") }

    private static func block(parsing entry: String) throws(TrustedProxySetError) -> Block {
        let parts = entry.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard var network = parseAddress(String(parts[0])) else { throw .badAddress(entry: entry) }
        var prefixLength = network.count * 8
        if parts.count == 2 {
            let digits = parts[1]
            guard !digits.isEmpty, digits.count <= 3, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                digits == "0" || !digits.hasPrefix("0"), let length = Int(digits), length <= network.count * 8
            else { throw .badPrefixLength(entry: entry) }
            prefixLength = length
        }
        if let ipv4 = unmapped(network), prefixLength >= 96 {
            network = ipv4
            prefixLength -= 96
        }
        let block = Block(network: masked(network, prefixLength: prefixLength), prefixLength: prefixLength)
        guard block.network == network else { throw .hostBitsSet(entry: entry, network: block.description) }
        return block
    }

    /// The 4 or 16 bytes of a textual address (`inet_pton`: a dotted quad of decimal octets
    /// without leading zeros, or an RFC 4291 §2.2 IPv6 address without a zone); `nil` otherwise.
    private static func parseAddress(_ text: String) -> [UInt8]? {
        let family = text.contains(":") ? AF_INET6 : AF_INET
        var bytes = [UInt8](repeating: 0, count: family == AF_INET6 ? 16 : 4)
        let parsed = bytes.withUnsafeMutableBytes { inet_pton(family, text, $0.baseAddress) }
        return parsed == 1 ? bytes : nil
    }

    /// The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, RFC 4291 §2.5.5.2).
    private static func unmapped(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF else {
            return nil
        }
        return Array(bytes[12...])
    }

    /// `bytes` with every bit after the first `prefixLength` cleared.
    private static func masked(_ bytes: [UInt8], prefixLength: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let kept = min(max(prefixLength - index * 8, 0), 8)
            return kept == 8 ? byte : byte & UInt8(truncatingIfNeeded: 0xFF << (8 - kept))
        }
    }

    /// The usual text of an address (`inet_ntop`).
    fileprivate static func format(_ bytes: [UInt8]) -> String {
        let family = bytes.count == 16 ? AF_INET6 : AF_INET
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let formatted = bytes.withUnsafeBytes { raw in
            inet_ntop(family, raw.baseAddress, &text, socklen_t(text.count))
        }
        guard formatted != nil else { return "?" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Why a `--proxy-protocol-from` list is not a list of CIDR blocks; each case names the entry.
package enum TrustedProxySetError: Error, Equatable, CustomStringConvertible {
    /// Nothing at all: a proxy list must name at least one proxy.
    case empty
    /// An empty entry (`a,,b` or a trailing comma), at this 1-based position.
    case emptyEntry(position: Int)
    /// The part before `/` is not an IPv4 dotted quad or an IPv6 address.
    case badAddress(entry: String)
    /// The part after `/` is not a decimal prefix length within 0-32 (IPv4) or 0-128 (IPv6).
    case badPrefixLength(entry: String)
    /// The address has bits set after its prefix; `network` is the block it would be.
    case hostBitsSet(entry: String, network: String)

    package var description: String {
        switch self {
        case .empty: "no proxy named (expected CIDR[,CIDR…], e.g. 127.0.0.1/32)"
        case .emptyEntry(let position): "entry \(position) is empty"
        case .badAddress(let entry): "'\(entry)' is not an IPv4 or IPv6 address (CIDR expected, e.g. 10.0.0.0/8)"
        case .badPrefixLength(let entry): "'\(entry)' has a bad prefix length (0-32 for IPv4, 0-128 for IPv6)"
        case .hostBitsSet(let entry, let network): "'\(entry)' has bits set after its prefix (did you mean \(network)?)"
        }
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    fileprivate func trimmingWhitespace() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
