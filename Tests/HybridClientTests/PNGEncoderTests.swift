import Foundation
import Testing

@testable import HybridPresentation

/// The hand-written PNG pieces against published check values and Python's zlib.
@Suite struct PNGEncoderTests {
    @Test func checksumsMatchPublishedCheckValues() {
        // CRC-32 check value from the CRC catalogue ("123456789" → CBF43926); Adler-32 of "Wikipedia"
        // (11E60398) from the algorithm's common worked example.
        #expect(Checksum.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(Checksum.adler32(Array("Wikipedia".utf8)) == 0x11E6_0398)
        #expect(Checksum.adler32([]) == 1)
    }

    @Test(arguments: [0, 1, 65_535, 65_536, 200_000])
    func zlibStreamInflatesWithPython(_ length: Int) async throws {
        let data = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }
        let stream = PNGEncoder.zlibStored(data)
        let script = """
            import sys, zlib
            sys.stdout.buffer.write(zlib.decompress(sys.stdin.buffer.read()))
            """
        #expect(try await ExternalTool.python(script, input: stream) == data)
    }

    @Test func pngStructureReadByPython() async throws {
        // A 10 × 3 image whose left column is black: Python parses the chunks, checks every CRC with
        // zlib.crc32, inflates IDAT and prints width, height, bit depth, colour type and the rows.
        let png = PNGEncoder.encode(width: 10, height: 3) { x, _ in x == 0 }
        let script = """
            import struct, sys, zlib
            data = sys.stdin.buffer.read()
            assert data[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
            pos, idat, out = 8, b"", []
            while pos < len(data):
                (length,) = struct.unpack(">I", data[pos:pos + 4]); kind = data[pos + 4:pos + 8]
                body = data[pos + 8:pos + 8 + length]; (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
                assert crc == zlib.crc32(kind + body), kind
                if kind == b"IHDR": out.append("%d %d %d %d" % struct.unpack(">IIBB", body[:10]))
                if kind == b"IDAT": idat += body
                pos += 12 + length
            out.append(zlib.decompress(idat).hex())
            print("\\n".join(out), end="")
            """
        let output = String(decoding: try await ExternalTool.python(script, input: png), as: UTF8.self)
        // Each row: filter 00, then 1 bits for white: 0111 1111 11.. .... = 7f c0.
        #expect(output == "10 3 1 0\n007fc0007fc0007fc0")
    }
}
