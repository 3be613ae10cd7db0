/// Reads the CBOR of an mdoc: definite and indefinite lengths, tags, floats and any map order;
/// bounded in depth (``maximumDepth``) and in declared lengths (checked against the input left
/// before anything is allocated). Trailing bytes, truncation, invalid UTF-8 and reserved
/// additional information are ``WalletError/invalidCredential(_:)``.
package struct MdocCBORReader {
    /// The deepest nesting accepted.
    package static let maximumDepth = 24

    private let bytes: [UInt8]
    private var position = 0

    /// Decodes `bytes`, which must hold exactly one item.
    package static func decode(_ bytes: [UInt8]) throws(WalletError) -> MdocCBOR {
        var reader = MdocCBORReader(bytes: bytes)
        let item = try reader.item(depth: 0)
        guard reader.position == bytes.count else { throw .invalidCredential("CBOR: trailing bytes") }
        return item
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private mutating func byte() throws(WalletError) -> UInt8 {
        guard position < bytes.count else { throw .invalidCredential("CBOR: truncated") }
        defer { position += 1 }
        return bytes[position]
    }

    private mutating func take(_ count: UInt64) throws(WalletError) -> [UInt8] {
        guard count <= UInt64(bytes.count - position) else { throw .invalidCredential("CBOR: truncated") }
        defer { position += Int(count) }
        return Array(bytes[position..<position + Int(count)])
    }

    /// The argument of a head with additional information `info`; `nil` for indefinite (31).
    private mutating func argument(_ info: UInt8) throws(WalletError) -> UInt64? {
        switch info {
        case 0..<24: return UInt64(info)
        case 24...27:
            var value: UInt64 = 0
            for byte in try take(1 << UInt64(info - 24)) { value = value << 8 | UInt64(byte) }
            return value
        case 31: return nil
        default: throw .invalidCredential("CBOR: reserved additional information")
        }
    }

    private mutating func item(depth: Int) throws(WalletError) -> MdocCBOR {
        guard depth <= Self.maximumDepth else { throw .invalidCredential("CBOR: nested too deep") }
        let start = position
        let initial = try byte()
        let major = initial >> 5
        let info = initial & 0x1f
        if major == 7 {
            switch info {
            case 0..<24: break
            case 24: _ = try take(1)
            case 25: _ = try take(2)
            case 26: _ = try take(4)
            case 27: _ = try take(8)
            default: throw .invalidCredential("CBOR: unexpected break or reserved simple value")
            }
            return .simple(Array(bytes[start..<position]))
        }
        let length = try argument(info)
        switch major {
        case 0, 1:
            guard let length else { throw .invalidCredential("CBOR: indefinite integer") }
            return major == 0 ? .unsigned(length) : .negative(length)
        case 2, 3:
            var content: [UInt8] = []
            if let length {
                content = try take(length)
            } else {
                while try peekBreak() == false {
                    let chunk = try item(depth: depth + 1)
                    switch (major, chunk) {
                    case (2, .bytes(let part)): content += part
                    case (3, .text(let part)): content += Array(part.utf8)
                    default: throw .invalidCredential("CBOR: bad indefinite string chunk")
                    }
                }
            }
            if major == 2 { return .bytes(content) }
            guard let text = String(validating: content, as: UTF8.self) else {
                throw .invalidCredential("CBOR: invalid UTF-8")
            }
            return .text(text)
        case 4:
            var elements: [MdocCBOR] = []
            if let length {
                guard length <= UInt64(bytes.count - position) else { throw .invalidCredential("CBOR: truncated") }
                for _ in 0..<length { elements.append(try item(depth: depth + 1)) }
            } else {
                while try peekBreak() == false { elements.append(try item(depth: depth + 1)) }
            }
            return .array(elements)
        case 5:
            var entries: [(MdocCBOR, MdocCBOR)] = []
            if let length {
                guard length <= UInt64(bytes.count - position) / 2 else { throw .invalidCredential("CBOR: truncated") }
                for _ in 0..<length { entries.append((try item(depth: depth + 1), try item(depth: depth + 1))) }
            } else {
                while try peekBreak() == false {
                    entries.append((try item(depth: depth + 1), try item(depth: depth + 1)))
                }
            }
            return .map(entries)
        default:
            guard let length else { throw .invalidCredential("CBOR: indefinite tag") }
            return .tag(length, try item(depth: depth + 1))
        }
    }

    /// Consumes a break (0xff) and returns true, or returns false at any other byte.
    private mutating func peekBreak() throws(WalletError) -> Bool {
        guard position < bytes.count else { throw .invalidCredential("CBOR: truncated") }
        guard bytes[position] == 0xff else { return false }
        position += 1
        return true
    }
}
