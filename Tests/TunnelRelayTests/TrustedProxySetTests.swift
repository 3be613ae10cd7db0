import NIOCore
import Testing

@testable import TunnelRelay

/// ``TrustedProxySet`` against CIDR semantics as RFC 4632 §3.1 (IPv4 prefixes) and RFC 4291 §2.3
/// (IPv6 prefixes) define them: an address is in `network/n` when its first n bits equal the
/// network's. Expected answers are written from those definitions, address by address.
struct TrustedProxySetTests {
    /// One membership question: the set written as on the command line, a peer, the answer.
    struct Case: Sendable, CustomTestStringConvertible {
        let list: String
        let peer: String
        let trusted: Bool

        var testDescription: String { "\(peer) in \(list): \(trusted)" }
    }

    static let cases: [Case] = [
        // A bare address is a single host (/32, /128).
        Case(list: "127.0.0.1", peer: "127.0.0.1", trusted: true),
        Case(list: "127.0.0.1", peer: "127.0.0.2", trusted: false),
        Case(list: "127.0.0.1/32", peer: "127.0.0.1", trusted: true),
        Case(list: "::1", peer: "::1", trusted: true),
        Case(list: "::1/128", peer: "::2", trusted: false),
        // Boundaries of 10.0.0.0/8: first and last address in, the neighbours out.
        Case(list: "10.0.0.0/8", peer: "10.0.0.0", trusted: true),
        Case(list: "10.0.0.0/8", peer: "10.255.255.255", trusted: true),
        Case(list: "10.0.0.0/8", peer: "9.255.255.255", trusted: false),
        Case(list: "10.0.0.0/8", peer: "11.0.0.0", trusted: false),
        // A prefix that ends inside a byte: 192.168.0.0/23 is 192.168.0.0-192.168.1.255.
        Case(list: "192.168.0.0/23", peer: "192.168.1.255", trusted: true),
        Case(list: "192.168.0.0/23", peer: "192.168.2.0", trusted: false),
        Case(list: "172.16.0.0/12", peer: "172.31.255.255", trusted: true),
        Case(list: "172.16.0.0/12", peer: "172.32.0.0", trusted: false),
        // fd00::/8: the first byte decides.
        Case(list: "fd00::/8", peer: "fd12:3456::1", trusted: true),
        Case(list: "fd00::/8", peer: "fc00::1", trusted: false),
        Case(list: "2001:db8::/33", peer: "2001:db8:7fff:ffff::1", trusted: true),
        Case(list: "2001:db8::/33", peer: "2001:db8:8000::", trusted: false),
        // Prefix 0: every address of its family, none of the other.
        Case(list: "0.0.0.0/0", peer: "203.0.113.9", trusted: true),
        Case(list: "0.0.0.0/0", peer: "2001:db8::1", trusted: false),
        Case(list: "::/0", peer: "2001:db8::1", trusted: true),
        Case(list: "::/0", peer: "203.0.113.9", trusted: false),
        // An IPv4 client of a dual-stack listener is ::ffff:a.b.c.d (RFC 4291 §2.5.5.2): it is
        // matched as the IPv4 address it carries.
        Case(list: "127.0.0.1/32", peer: "::ffff:127.0.0.1", trusted: true),
        Case(list: "127.0.0.1/32", peer: "::ffff:127.0.0.2", trusted: false),
        Case(list: "10.0.0.0/8", peer: "::ffff:10.1.2.3", trusted: true),
        // An IPv4 block written in the mapped form names the same IPv4 block.
        Case(list: "::ffff:10.0.0.0/104", peer: "10.200.0.1", trusted: true),
        Case(list: "::ffff:127.0.0.1", peer: "127.0.0.1", trusted: true),
        // Not a mapped address: ::127.0.0.1 (the deprecated "compatible" form) is plain IPv6.
        Case(list: "127.0.0.1/32", peer: "::7f00:1", trusted: false),
        // Several blocks, spaces around entries.
        Case(list: "127.0.0.1/32, 10.0.0.0/8 ,fd00::/8", peer: "10.9.8.7", trusted: true),
        Case(list: "127.0.0.1/32, 10.0.0.0/8 ,fd00::/8", peer: "fdff::1", trusted: true),
        Case(list: "127.0.0.1/32, 10.0.0.0/8 ,fd00::/8", peer: "192.0.2.1", trusted: false),
    ]

    @Test(arguments: cases)
    func membership(_ testCase: Case) throws {
        let set = try TrustedProxySet(parsing: testCase.list)
        let peer = try SocketAddress(ipAddress: testCase.peer, port: 443)
        #expect(set.contains(peer) == testCase.trusted)
    }

    /// The empty set (the configuration's default) trusts nobody, and a Unix socket is never a proxy.
    @Test func emptySetAndUnixSocketsTrustNobody() throws {
        #expect(!TrustedProxySet().contains(try SocketAddress(ipAddress: "127.0.0.1", port: 1)))
        #expect(TrustedProxySet().isEmpty)
        let all = try TrustedProxySet(parsing: "0.0.0.0/0,::/0")
        #expect(!all.contains(try SocketAddress(unixDomainSocketPath: "/tmp/relay.sock")))
    }

    /// The bytes entry point (what the socket address is reduced to) agrees on the same cases.
    @Test func addressBytes() throws {
        let set = try TrustedProxySet(parsing: "127.0.0.0/31")
        #expect(set.contains(address: [127, 0, 0, 1]))
        #expect(!set.contains(address: [127, 0, 0, 2]))
        #expect(set.contains(address: Array(repeating: 0, count: 10) + [0xFF, 0xFF, 127, 0, 0, 0]))
        // Neither 4 nor 16 bytes: no match rather than a crash.
        #expect(!set.contains(address: [127, 0, 0]))
    }

    /// The normalized text: IPv6 in RFC 5952 form, mapped IPv4 blocks as IPv4.
    @Test func description() throws {
        #expect(
            try TrustedProxySet(parsing: " 127.0.0.1 ,FD00:0:0::/8,::ffff:10.0.0.0/104,::1").description
                == "127.0.0.1/32,fd00::/8,10.0.0.0/8,::1/128")
    }

    /// Bad lists: each error names the entry at fault.
    @Test(arguments: [
        ("", TrustedProxySetError.empty),
        ("  ", .empty),
        ("127.0.0.1/32,", .emptyEntry(position: 2)),
        (",127.0.0.1", .emptyEntry(position: 1)),
        ("127.0.0.1,,::1", .emptyEntry(position: 2)),
        ("localhost", .badAddress(entry: "localhost")),
        ("127.0.0.1/32,proxy.example/32", .badAddress(entry: "proxy.example/32")),
        ("127.1", .badAddress(entry: "127.1")),
        ("010.0.0.1", .badAddress(entry: "010.0.0.1")),
        ("256.0.0.1/32", .badAddress(entry: "256.0.0.1/32")),
        ("0x7f.0.0.1", .badAddress(entry: "0x7f.0.0.1")),
        ("fe80::1%eth0/128", .badAddress(entry: "fe80::1%eth0/128")),
        ("1:2:3:4:5:6:7:8:9", .badAddress(entry: "1:2:3:4:5:6:7:8:9")),
        ("127.0.0.1 /32", .badAddress(entry: "127.0.0.1 /32")),
        ("/8", .badAddress(entry: "/8")),
        ("10.0.0.0/33", .badPrefixLength(entry: "10.0.0.0/33")),
        ("::/129", .badPrefixLength(entry: "::/129")),
        ("10.0.0.0/", .badPrefixLength(entry: "10.0.0.0/")),
        ("10.0.0.0/-8", .badPrefixLength(entry: "10.0.0.0/-8")),
        ("10.0.0.0/+8", .badPrefixLength(entry: "10.0.0.0/+8")),
        ("10.0.0.0/08", .badPrefixLength(entry: "10.0.0.0/08")),
        ("10.0.0.0/8/8", .badPrefixLength(entry: "10.0.0.0/8/8")),
        ("10.0.0.0/ 8", .badPrefixLength(entry: "10.0.0.0/ 8")),
        ("10.0.0.1/8", .hostBitsSet(entry: "10.0.0.1/8", network: "10.0.0.0/8")),
        ("fd00::1/8", .hostBitsSet(entry: "fd00::1/8", network: "fd00::/8")),
        ("1.2.3.4/0", .hostBitsSet(entry: "1.2.3.4/0", network: "0.0.0.0/0")),
    ])
    func badLists(list: String, error: TrustedProxySetError) {
        #expect(throws: error) { try TrustedProxySet(parsing: list) }
    }

    /// The error text says which entry is wrong and why, for the CLI's message.
    @Test func errorTextNamesTheEntry() {
        #expect(
            TrustedProxySetError.hostBitsSet(entry: "10.0.0.1/8", network: "10.0.0.0/8").description
                == "'10.0.0.1/8' has bits set after its prefix (did you mean 10.0.0.0/8?)")
        #expect("\(TrustedProxySetError.badAddress(entry: "proxy.example"))".contains("'proxy.example'"))
    }
}
