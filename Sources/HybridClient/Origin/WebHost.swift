#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The host of a web origin, in its URL-standard serialization (lower case; IPv6 compressed, in brackets).
package enum WebHost: Sendable, Hashable {
    /// A domain name such as `login.example.com` (ASCII only, no trailing dot).
    case domain(String)
    /// An IPv4 address in dotted-decimal form.
    case ipv4(String)
    /// An IPv6 address, serialized without brackets.
    case ipv6(String)

    /// Parses a host as it appears in a URL authority (brackets around IPv6). `nil` if not supported.
    init?(parsing text: Substring) {
        if text.hasPrefix("[") {
            guard text.hasSuffix("]"), let address = Self.ipv6(String(text.dropFirst().dropLast())) else { return nil }
            self = .ipv6(address)
        } else {
            let lowered = text.lowercased()
            if let address = Self.ipv4(lowered) {
                self = .ipv4(address)
            } else if DomainName.isValid(lowered), !DomainName.endsInNumber(lowered) {
                self = .domain(lowered)
            } else {
                return nil
            }
        }
    }

    /// The host as written in an origin (`example.com`, `127.0.0.1`, `[::1]`).
    package var serialization: String {
        switch self {
        case .domain(let name): name
        case .ipv4(let address): address
        case .ipv6(let address): "[\(address)]"
        }
    }

    /// The host as an RP ID would name it (no brackets).
    package var bareName: String {
        switch self {
        case .domain(let name): name
        case .ipv4(let address): address
        case .ipv6(let address): address
        }
    }

    /// Loopback names and addresses, where browsers also treat `http` as a secure context.
    package var isLoopback: Bool {
        switch self {
        case .domain(let name): name == "localhost" || name.hasSuffix(".localhost")
        case .ipv4(let address): address.hasPrefix("127.")
        case .ipv6(let address): address == "::1"
        }
    }

    /// Strict dotted-decimal IPv4 (four parts, 0…255, no leading zeros).
    static func ipv4(_ text: String) -> String? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        for part in parts {
            guard !part.isEmpty, part.count <= 3, part.allSatisfy(\.isASCIIDigit),
                part == "0" || !part.hasPrefix("0"), let value = Int(part), value <= 255
            else { return nil }
        }
        return text
    }

    /// IPv6 parsed with `inet_pton` and re-serialized as the URL standard does: lower-case hex,
    /// the first longest run of two or more zero pieces compressed to `::`.
    static func ipv6(_ text: String) -> String? {
        var raw = in6_addr()
        guard inet_pton(AF_INET6, text, &raw) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: raw) { Array($0) }
        let pieces = (0..<8).map { UInt16(bytes[2 * $0]) << 8 | UInt16(bytes[2 * $0 + 1]) }
        var best = (start: -1, length: 0)
        var index = 0
        while index < 8 {
            guard pieces[index] == 0 else {
                index += 1
                continue
            }
            var end = index
            while end < 8, pieces[end] == 0 { end += 1 }
            if end - index > best.length { best = (index, end - index) }
            index = end
        }
        if best.length < 2 { best = (-1, 0) }
        var out = ""
        index = 0
        while index < 8 {
            if index == best.start {
                out += index == 0 ? "::" : ":"
                index += best.length
                continue
            }
            out += String(pieces[index], radix: 16)
            if index < 7 { out += ":" }
            index += 1
        }
        return out
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
