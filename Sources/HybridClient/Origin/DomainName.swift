/// Syntax checks for ASCII domain names (hosts and RP IDs).
enum DomainName {
    /// Lower-case letters, digits, `-` and `_`; labels of 1…63 characters not starting or ending with
    /// `-`; at most 253 characters; no trailing dot. IDN names must already be in punycode.
    static func isValid(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 253 else { return false }
        for label in name.split(separator: ".", omittingEmptySubsequences: false) {
            guard (1...63).contains(label.utf8.count), !label.hasPrefix("-"), !label.hasSuffix("-") else {
                return false
            }
            for byte in label.utf8 {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "-"), UInt8(ascii: "_"):
                    continue
                default:
                    return false
                }
            }
        }
        return true
    }

    /// True when the last label is all digits: the URL standard treats such hosts as IPv4 attempts.
    static func endsInNumber(_ name: String) -> Bool {
        guard let last = name.split(separator: ".").last else { return false }
        return last.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// `host` is `suffix` or ends with `.suffix`.
    static func host(_ host: String, isOrEndsWith suffix: String) -> Bool {
        host == suffix || host.hasSuffix("." + suffix)
    }
}
