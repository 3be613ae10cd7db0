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
        let capacity = Int(deflateBound(&stream, uLong(data.count))) + 16
        guard let output = finish(&stream, input: data, capacity: capacity, step: { deflate($0, Z_FINISH) }) else {
            return nil
        }
        return Array(output.prefix(Int(stream.total_out)))
    }

    /// Inflates raw DEFLATE `data` that must expand to exactly `originalSize` bytes; `nil` when it
    /// does not (corrupt, truncated, longer or shorter, or `originalSize` above the bound).
    static func decompress(_ data: [UInt8], originalSize: Int) -> [UInt8]? {
        guard (0...maximumOriginalSize).contains(originalSize), !data.isEmpty else { return nil }
        var stream = z_stream()
        guard czlib_inflate_init_raw(&stream) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        // One spare byte: output longer than announced fills it and is refused.
        guard let output = finish(&stream, input: data, capacity: originalSize + 1, step: { inflate($0, Z_FINISH) }),
            Int(stream.total_out) == originalSize
        else { return nil }
        return Array(output.prefix(originalSize))
    }

    /// Runs one `Z_FINISH` step of `stream` over all of `input` into a buffer of `capacity` bytes;
    /// the buffer when the stream ended, `nil` otherwise.
    private static func finish(
        _ stream: inout z_stream, input: [UInt8], capacity: Int, step: (UnsafeMutablePointer<z_stream>) -> Int32
    ) -> [UInt8]? {
        var input = input
        var output = [UInt8](repeating: 0, count: capacity)
        let status = input.withUnsafeMutableBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                stream.next_in = inputBuffer.baseAddress
                stream.avail_in = uInt(inputBuffer.count)
                stream.next_out = outputBuffer.baseAddress
                stream.avail_out = uInt(outputBuffer.count)
                return step(&stream)
            }
        }
        return status == Z_STREAM_END ? output : nil
    }
}
