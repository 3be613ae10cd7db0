import NIOCore
import Testing

@testable import TunnelRelay

/// The PROXY v2 header parser against headers written out byte by byte from HAProxy's "The PROXY
/// protocol, Versions 1 & 2" §2.2 (signature, version/command, family/protocol, length, addresses).
struct ProxyProtocolV2ParserTests {
    /// `\r\n\r\n\0\r\nQUIT\n`, spelled out from the spec, not taken from the parser.
    static let signature: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A]

    /// PROXY (0x21), TCP over IPv4 (0x11), 12 address bytes: 192.0.2.1:54321 → 198.51.100.2:443.
    static let ipv4: [UInt8] =
        signature + [0x21, 0x11, 0x00, 0x0C, 192, 0, 2, 1, 198, 51, 100, 2, 0xD4, 0x31, 0x01, 0xBB]

    /// PROXY, TCP over IPv6 (0x21), 36 address bytes: [2001:db8:1:2::1]:54321 → [2001:db8::443]:443.
    static func ipv6(source: [UInt8]) -> [UInt8] {
        let destination: [UInt8] = [0x20, 0x01, 0x0D, 0xB8] + Array(repeating: 0, count: 10) + [0x04, 0x43]
        return signature + [0x21, 0x21, 0x00, 0x24] + source + destination + [0xD4, 0x31, 0x01, 0xBB]
    }

    static let ipv6Source: [UInt8] =
        [0x20, 0x01, 0x0D, 0xB8, 0x00, 0x01, 0x00, 0x02] + Array(repeating: 0, count: 7) + [1]

    @Test func ipv4ProxyHeader() throws {
        let parsed = try #require(try ProxyProtocolV2Parser.parse(Self.ipv4 + Array("GET /".utf8)))
        #expect(parsed.length == 28)
        #expect(
            parsed.header == ProxyProtocolV2Header(command: .proxy, source: RelayClientAddress(ipv4: [192, 0, 2, 1])))
        #expect(parsed.header.source?.key == "192.0.2.1")
    }

    @Test func ipv6ProxyHeaderCountsTheSlash64() throws {
        let parsed = try #require(try ProxyProtocolV2Parser.parse(Self.ipv6(source: Self.ipv6Source)))
        #expect(parsed.length == 52)
        #expect(parsed.header.source?.key == "2001:db8:1:2::/64")
    }

    /// LOCAL (0x20), UNSPEC (0x00), no addresses: what HAProxy's health checks send.
    @Test func localHeaderNamesNoClient() throws {
        let parsed = try #require(try ProxyProtocolV2Parser.parse(Self.signature + [0x20, 0x00, 0x00, 0x00]))
        #expect(parsed.header == ProxyProtocolV2Header(command: .local, source: nil))
        #expect(parsed.length == 16)
    }

    /// LOCAL with an IPv4 block: the addresses are ignored (spec: "the receiver must ... use the
    /// real connection endpoints").
    @Test func localHeaderIgnoresAddresses() throws {
        var local = Self.ipv4
        local[12] = 0x20
        #expect(try ProxyProtocolV2Parser.parse(local)?.header.source == nil)
    }

    /// A TLV after the addresses (PP2_TYPE_NOOP, 0x04, with 4 bytes) is skipped: the length field counts it.
    @Test func tlvsAreSkipped() throws {
        var header = Self.ipv4 + [0x04, 0x00, 0x04, 0, 0, 0, 0]
        header[15] = 12 + 7
        #expect(try ProxyProtocolV2Parser.parse(header)?.length == 35)
    }

    @Test func needsTheWholeHeader() throws {
        for count in 0..<Self.ipv4.count {
            #expect(try ProxyProtocolV2Parser.parse(Self.ipv4.prefix(count)) == nil, "prefix of \(count) bytes")
        }
    }

    @Test func plainRequestFailsAtItsFirstByte() {
        #expect(throws: ProxyProtocolV2Error.badSignature) { try ProxyProtocolV2Parser.parse(Array("G".utf8)) }
        // PROXY protocol v1 is text: not accepted.
        #expect(throws: ProxyProtocolV2Error.badSignature) {
            try ProxyProtocolV2Parser.parse(Array("PROXY TCP4 192.0.2.1 198.51.100.2 54321 443\r\n".utf8))
        }
    }

    @Test func badFields() {
        var version1 = Self.ipv4
        version1[12] = 0x11
        #expect(throws: ProxyProtocolV2Error.unsupportedVersion(1)) { try ProxyProtocolV2Parser.parse(version1) }
        var command2 = Self.ipv4
        command2[12] = 0x22
        #expect(throws: ProxyProtocolV2Error.unknownCommand(2)) { try ProxyProtocolV2Parser.parse(command2) }
        var short = Self.ipv4.prefix(16 + 8)
        short[15] = 8
        #expect(throws: ProxyProtocolV2Error.addressesTruncated) { try ProxyProtocolV2Parser.parse(short) }
        var huge = Self.ipv4
        huge[14] = 0xFF
        huge[15] = 0xFF
        #expect(throws: ProxyProtocolV2Error.tooLong(65_535)) { try ProxyProtocolV2Parser.parse(huge) }
    }
}

/// The per-address limits count an IPv6 client by its /64 (RFC 6177: one subscriber, one /64).
struct RelayClientAddressTests {
    static func key(_ text: String) throws -> String? {
        RelayClientAddress(try SocketAddress(ipAddress: text, port: 443))?.key
    }

    @Test func ipv6AddressesOfOneSlash64AreOneClient() throws {
        let first = try Self.key("2001:db8:1:2::1")
        #expect(first == "2001:db8:1:2::/64")
        #expect(try Self.key("2001:db8:1:2:ffff:ffff:ffff:ffff") == first)
        #expect(try Self.key("2001:db8:1:3::1") != first)
        #expect(try Self.key("2001:db9:1:2::1") != first)
    }

    @Test func ipv4AndMappedIPv4() throws {
        #expect(try Self.key("192.0.2.1") == "192.0.2.1")
        #expect(try Self.key("::ffff:192.0.2.1") == "192.0.2.1")
        #expect(try Self.key("192.0.2.1") != Self.key("192.0.2.2"))
    }

    /// A burst of 2 shared by two addresses of one /64: the third connection from that /64 is
    /// refused, one from the next /64 is not.
    @Test func rateLimitSharesOneBucketPerSlash64() throws {
        let limiter = ConnectionRateLimiter(rate: 1, burst: 2)
        let now = NIODeadline.uptimeNanoseconds(1_000_000_000)
        let client = { (text: String) in RelayClientAddress(try SocketAddress(ipAddress: text, port: 1)) }
        #expect(limiter.allow(try client("2001:db8:1:2::1"), now: now))
        #expect(limiter.allow(try client("2001:db8:1:2::2"), now: now))
        #expect(!limiter.allow(try client("2001:db8:1:2:abcd::3"), now: now))
        #expect(limiter.allow(try client("2001:db8:1:3::1"), now: now))
    }
}
