/// Why a `FIDO:/` digit string could not be decoded (protocol.md §1.2).
///
/// Cases are listed in the order `DigitEncoding/decode(_:)` checks them.
public enum DigitEncodingError: Error, Equatable, Sendable {
    /// A character is not an ASCII digit `0`–`9` (a `+` sign, full-width or combining digits included).
    case nonDigit
    /// The number of digits leaves a remainder (modulo 17) that no byte count encodes:
    /// only 0, 3, 5, 8, 10, 13 and 15 are allowed. Carries the total digit count.
    case invalidLength(Int)
    /// A chunk's value does not fit the bytes it encodes: a 17-digit chunk ≥ 2^56, or a final
    /// chunk of n bytes ≥ 2^(8n).
    case chunkOutOfRange
}
