/// The crypter's length-hiding padding to a multiple of 32 bytes (protocol.md §7.1).
/// Chromium: the padding inside `Crypter::Encrypt` / `Crypter::Decrypt`.
///
/// `padded = message || zeros || count`, where `count` (one byte, 0–31) is the number of zero
/// bytes and the total length is the smallest multiple of 32 that is at least `len + 1`.
package enum TransportPadding {
    /// Padded lengths are multiples of this.
    package static let granularity = 32

    /// Pads `message`.
    ///
    /// - Returns: A non-empty multiple of 32 bytes.
    package static func pad(_ message: some Collection<UInt8>) -> [UInt8] {
        let length = message.count
        let paddedLength = (length + granularity) / granularity * granularity  // smallest multiple ≥ len + 1
        let zeroCount = paddedLength - length - 1
        var out = Array(message)
        out.reserveCapacity(paddedLength)
        out.append(contentsOf: repeatElement(0, count: zeroCount))
        out.append(UInt8(zeroCount))
        return out
    }

    /// Removes padding.
    ///
    /// Reads the count z from the last byte and strips z + 1 bytes. The stripped bytes are not
    /// required to be zero (Chromium does not check them), and the length need not be a multiple
    /// of 32.
    ///
    /// - Throws: ``TransportError/invalidPadding`` if `padded` is empty or z + 1 exceeds its length.
    package static func unpad(_ padded: some Collection<UInt8>) throws(TransportError) -> [UInt8] {
        let bytes = Array(padded)
        guard let count = bytes.last, Int(count) + 1 <= bytes.count else { throw .invalidPadding }
        return Array(bytes[..<(bytes.count - Int(count) - 1)])
    }
}
