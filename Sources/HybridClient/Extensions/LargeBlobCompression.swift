import CZlib

/// Large blobs travel DEFLATE-compressed (raw RFC 1951) with their original size (CTAP 2.1 §6.10.3,
/// the `largeBlob` extension's `write`/`originalSize` and `blob`/`originalSize`), compressed and
/// inflated by the client as Chromium does (zlib here).
enum LargeBlobCompression {
    /// The largest original size accepted from a phone (a bound on what is allocated).
    static let maximumOriginalSize = 1 << 20

    /// `data` as raw DEFLATE; `nil` only if zlib fails.
    static func compress(_ data: [UInt8]) -> [UInt8]? {
        var stream = z_stream()
        guard czlib_deflate_init_raw(&stream) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        var input = data
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(data.count))) + 16)
        let status = input.withUnsafeMutableBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                stream.next_in = inputBuffer.baseAddress
                stream.avail_in = uInt(inputBuffer.count)
                stream.next_out = outputBuffer.baseAddress
                stream.avail_out = uInt(outputBuffer.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { return nil }
        return Array(output.prefix(Int(stream.total_out)))
    }

    /// Inflates raw DEFLATE `data` that must expand to exactly `originalSize` bytes; `nil` when it
    /// does not (corrupt, truncated, longer or shorter, or `originalSize` above the bound).
    static func decompress(_ data: [UInt8], originalSize: Int) -> [UInt8]? {
        guard (0...maximumOriginalSize).contains(originalSize), !data.isEmpty else { return nil }
        var stream = z_stream()
        guard czlib_inflate_init_raw(&stream) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var input = data
        // One spare byte: output longer than announced fills it and is refused.
        var output = [UInt8](repeating: 0, count: originalSize + 1)
        let status = input.withUnsafeMutableBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                stream.next_in = inputBuffer.baseAddress
                stream.avail_in = uInt(inputBuffer.count)
                stream.next_out = outputBuffer.baseAddress
                stream.avail_out = uInt(outputBuffer.count)
                return inflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END, Int(stream.total_out) == originalSize else { return nil }
        return Array(output.prefix(originalSize))
    }
}
