/// Byte helpers for hand-written fixtures.
enum Fixture {
    /// Parses hex with optional spaces: `"02 01 06"`. Traps on a typo, which is a test bug.
    static func bytes(_ hex: String) -> [UInt8] {
        let digits = hex.filter { !$0.isWhitespace }
        precondition(digits.count % 2 == 0, "odd hex fixture")
        var result: [UInt8] = []
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            guard let byte = UInt8(digits[index..<next], radix: 16) else { preconditionFailure("bad hex fixture") }
            result.append(byte)
            index = next
        }
        return result
    }

    /// The 20-byte service data of the real Android advert quoted in protocol.md §3.4.
    static let androidEID = bytes("5f4397445af32fbc4333d5b71c26c920134e4730")
    /// The same advert's CTAP 2.3 suffix `{1: 130}` (§3.4).
    static let androidSuffix = bytes("a1011882")
}
