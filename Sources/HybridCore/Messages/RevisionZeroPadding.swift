/// The padded CBOR map of a revision-0 post-handshake message (protocol.md §10.2, SCHEMA.md §4.15).
/// Chromium: `EncodePaddedCBORMap` / `DecodePaddedCBORMap`.
///
/// `padded = CBOR map || zeros || trailer`, where the trailer holds the number of zeros:
/// - ``Trailer/sixteenBit`` (M99 and later): LE16, total a multiple of 512;
/// - ``Trailer/eightBit`` (before M99): one byte, total a multiple of 256.
///
/// The decoder cannot know which one a phone used, so it tries the 16-bit trailer first and then
/// the 8-bit one. The zero bytes are not checked.
package enum RevisionZeroPadding {
    /// The two trailer formats.
    package enum Trailer: Sendable, Hashable, CaseIterable {
        /// LE16 count, 512-byte granularity (Chromium M99 and later).
        case sixteenBit
        /// One count byte, 256-byte granularity (before M99).
        case eightBit

        /// Padded lengths are multiples of this.
        package var granularity: Int { self == .sixteenBit ? 512 : 256 }
        /// Bytes taken by the count.
        package var trailerByteCount: Int { self == .sixteenBit ? 2 : 1 }
    }

    /// The result of ``unpad(_:)``.
    package struct Unpadded: Hashable, Sendable {
        /// The CBOR bytes before the padding.
        package let bytes: [UInt8]
        /// Those bytes decoded; always a map.
        package let map: CBORValue
        /// The trailer that worked.
        package let trailer: Trailer
    }

    /// Pads an encoded CBOR map.
    ///
    /// - Parameters:
    ///   - map: Canonical CBOR bytes of a map (not checked).
    ///   - trailer: The format; 16-bit unless reproducing a pre-M99 phone.
    /// - Returns: The smallest multiple of the granularity that holds the map and the trailer.
    package static func pad(_ map: some Collection<UInt8>, trailer: Trailer = .sixteenBit) -> [UInt8] {
        let length = map.count + trailer.trailerByteCount
        let paddedLength = (length + trailer.granularity - 1) / trailer.granularity * trailer.granularity
        let zeroCount = paddedLength - length  // < granularity, so it fits the trailer
        var out = Array(map)
        out.reserveCapacity(paddedLength)
        out.append(contentsOf: repeatElement(0, count: zeroCount))
        out.append(UInt8(truncatingIfNeeded: zeroCount))
        if trailer == .sixteenBit { out.append(UInt8(truncatingIfNeeded: zeroCount >> 8)) }
        return out
    }

    /// Strips the padding and decodes the map: the 16-bit trailer first, then the 8-bit one.
    ///
    /// - Throws: ``HybridMessageError/invalidPadding`` if neither trailer leaves one strict CBOR map.
    package static func unpad(_ padded: some Collection<UInt8>) throws(HybridMessageError) -> Unpadded {
        let bytes = Array(padded)
        for trailer in Trailer.allCases {
            if let unpadded = unpad(bytes, trailer: trailer) { return unpadded }
        }
        throw .invalidPadding
    }

    private static func unpad(_ bytes: [UInt8], trailer: Trailer) -> Unpadded? {
        guard bytes.count >= trailer.trailerByteCount else { return nil }
        var zeroCount = Int(bytes[bytes.count - 1])
        if trailer == .sixteenBit { zeroCount = zeroCount << 8 | Int(bytes[bytes.count - 2]) }
        let strippedCount = zeroCount + trailer.trailerByteCount
        guard strippedCount <= bytes.count else { return nil }
        let message = Array(bytes[..<(bytes.count - strippedCount)])
        guard let map = try? CBORDecoder.decode(message), map.mapEntries != nil else { return nil }
        return Unpadded(bytes: message, map: map, trailer: trailer)
    }
}
