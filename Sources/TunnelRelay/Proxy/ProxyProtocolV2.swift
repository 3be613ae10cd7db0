/// The header of the PROXY protocol version 2 (HAProxy, "The PROXY protocol, Versions 1 & 2",
/// §2.2), which a proxy configured with `send-proxy-v2` writes before anything else on every
/// connection it opens to a server: the original client's address, so per-client limits work
/// behind the proxy. Only what the relay needs is kept; TLVs are skipped.
struct ProxyProtocolV2Header: Equatable, Sendable {
    /// `PROXY`: relayed for a client; `LOCAL`: the proxy's own connection (a health check).
    enum Command: Equatable, Sendable {
        case local
        case proxy
    }

    var command: Command
    /// The client's address for a `PROXY` over TCP or UDP on IPv4 or IPv6; `nil` otherwise
    /// (`LOCAL`, `UNSPEC`, Unix sockets), where the spec says to use the connection's own address.
    var source: RelayClientAddress?
}

/// Why the first bytes of a connection are not a PROXY v2 header the relay accepts.
enum ProxyProtocolV2Error: Error, Equatable {
    /// The 12-byte signature does not match (a client talking to the relay directly, or v1).
    case badSignature
    /// The version nibble is not 2.
    case unsupportedVersion(UInt8)
    /// The command nibble is neither LOCAL (0) nor PROXY (1).
    case unknownCommand(UInt8)
    /// The length field is shorter than the address block its family needs.
    case addressesTruncated
    /// The length field announces more than ``ProxyProtocolV2Parser/maxRemainder`` bytes.
    case tooLong(Int)
}

/// Parses a PROXY v2 header from the first bytes of a connection. Sans-IO: bytes in, a header
/// and its length out; the caller buffers and calls again while ``parse(_:)`` returns `nil`.
enum ProxyProtocolV2Parser {
    /// `\r\n\r\n\0\r\nQUIT\n` (spec §2.2).
    static let signature: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A]
    /// Signature, version/command, family/protocol, 2-byte length.
    static let fixedLength = 16
    /// Most bytes after the fixed part: the largest address block (216 for Unix sockets) and
    /// room for TLVs (HAProxy's `proxy-v2-options`). The spec allows 65 535; a relay needs no more.
    static let maxRemainder = 1024

    /// The header at the start of `bytes` and its total length, or `nil` if more bytes are needed.
    /// Fails as soon as a byte contradicts the format (the first byte of a plain request does).
    static func parse(_ bytes: some Collection<UInt8>) throws(ProxyProtocolV2Error) -> (
        header: ProxyProtocolV2Header, length: Int
    )? {
        let bytes = Array(bytes.prefix(fixedLength + maxRemainder))
        guard bytes.starts(with: signature.prefix(bytes.count)) else { throw .badSignature }
        guard bytes.count >= fixedLength else { return nil }
        let version = bytes[12] >> 4
        guard version == 2 else { throw .unsupportedVersion(version) }
        let command: ProxyProtocolV2Header.Command
        switch bytes[12] & 0x0F {
        case 0: command = .local
        case 1: command = .proxy
        case let other: throw .unknownCommand(other)
        }
        let remainder = Int(bytes[14]) << 8 | Int(bytes[15])
        guard remainder <= maxRemainder else { throw .tooLong(remainder) }
        guard bytes.count >= fixedLength + remainder else { return nil }
        let addresses = bytes[fixedLength..<(fixedLength + remainder)]
        let source: RelayClientAddress?
        switch bytes[13] >> 4 {
        case 0x1:
            guard remainder >= 12 else { throw .addressesTruncated }
            source = RelayClientAddress(ipv4: addresses.prefix(4))
        case 0x2:
            guard remainder >= 36 else { throw .addressesTruncated }
            source = RelayClientAddress(ipv6: addresses.prefix(16))
        case 0x3:
            guard remainder >= 216 else { throw .addressesTruncated }
            source = nil
        default:
            source = nil
        }
        return (
            ProxyProtocolV2Header(command: command, source: command == .proxy ? source : nil), fixedLength + remainder
        )
    }
}
