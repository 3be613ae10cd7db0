import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// A client as the per-address limits count it (connections, rate, pending tunnels): an IPv4
/// address whole, an IPv6 address by its /64 prefix. One IPv6 subscriber usually gets a whole
/// /64 (RFC 6177) and can pick a fresh address in it for every connection, so counting full IPv6
/// addresses would let one client through every per-address cap. An IPv4-mapped IPv6 address
/// (`::ffff:a.b.c.d`) counts as the IPv4 address it carries. Pure: built from address bytes.
struct RelayClientAddress: Hashable, Sendable, CustomStringConvertible {
    /// `203.0.113.7` or `2001:db8:1:2::/64`: the dictionary key of the limits, and what logs show.
    let key: String

    var description: String { key }

    /// An IPv4 address from its 4 bytes in network order.
    init?(ipv4 bytes: some Collection<UInt8>) {
        guard bytes.count == 4 else { return nil }
        self.init(key: bytes.map(String.init).joined(separator: "."))
    }

    private init(key: String) {
        self.key = key
    }

    /// An IPv6 address from its 16 bytes in network order, reduced to its /64.
    init?(ipv6 bytes: some Collection<UInt8>) {
        let bytes = Array(bytes)
        guard bytes.count == 16 else { return nil }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
            self.init(key: bytes[12...].map(String.init).joined(separator: "."))
            return
        }
        let groups = stride(from: 0, to: 8, by: 2).map {
            String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16)
        }
        self.init(key: groups.joined(separator: ":") + "::/64")
    }

    /// The address of a connected socket; `nil` for a Unix socket.
    init?(_ address: SocketAddress) {
        switch address {
        case .v4(let v4):
            var raw = v4.address.sin_addr
            self.init(ipv4: withUnsafeBytes(of: &raw) { Array($0) })
        case .v6(let v6):
            var raw = v6.address.sin6_addr
            self.init(ipv6: withUnsafeBytes(of: &raw) { Array($0) })
        case .unixDomainSocket:
            return nil
        }
    }
}
