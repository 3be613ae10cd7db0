/// A minimal PNG writer for black-and-white images: 1-bit greyscale, no filtering, and a zlib stream
/// of stored (uncompressed) deflate blocks. Enough for QR codes; no dependency beyond the standard library.
enum PNGEncoder {
    /// Encodes a bitmap given row by row, `true` = black.
    static func encode(width: Int, height: Int, isBlack: (_ x: Int, _ y: Int) -> Bool) -> [UInt8] {
        precondition(width > 0 && height > 0, "empty image")
        let rowBytes = (width + 7) / 8
        var raw: [UInt8] = []
        raw.reserveCapacity(height * (rowBytes + 1))
        for y in 0..<height {
            raw.append(0)  // filter type None
            var row = [UInt8](repeating: 0, count: rowBytes)
            for x in 0..<width where !isBlack(x, y) {
                row[x / 8] |= 0x80 >> UInt8(x % 8)  // 1 = white in greyscale
            }
            raw += row
        }
        var header: [UInt8] = []
        header += bigEndian32(UInt32(width))
        header += bigEndian32(UInt32(height))
        header += [1, 0, 0, 0, 0]  // bit depth 1, colour type 0 (greyscale), deflate, filter 0, no interlace
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += chunk("IHDR", header)
        png += chunk("IDAT", zlibStored(raw))
        png += chunk("IEND", [])
        return png
    }

    /// One chunk: length, type, data, CRC-32 of type and data.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        return bigEndian32(UInt32(data.count)) + typeBytes + data + bigEndian32(Checksum.crc32(typeBytes + data))
    }

    /// A zlib stream (RFC 1950) holding deflate stored blocks (RFC 1951 §3.2.4) of at most 65 535 bytes.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]  // deflate, 32 KiB window, no dictionary, check bits valid
        var offset = 0
        repeat {
            let length = min(65_535, data.count - offset)
            let isFinal = offset + length == data.count
            out.append(isFinal ? 1 : 0)
            out += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            out += data[offset..<offset + length]
            offset += length
        } while offset < data.count
        out += bigEndian32(Checksum.adler32(data))
        return out
    }

    static func bigEndian32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}

/// The two checksums PNG needs.
enum Checksum {
    private static let crcTable: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    /// CRC-32 (ISO 3309, reflected polynomial 0xEDB88320), as used by PNG and zip.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }

    /// Adler-32 (RFC 1950 §8).
    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }
}
