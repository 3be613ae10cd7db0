import HybridLocalFiles

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Reading a CXF document from a file, bounded.
package enum CXFFile {
    /// Why the file was not read.
    package enum ReadFailure: Error, Hashable, Sendable {
        /// It is larger than the limit (``CXFError/tooLarge(limit:)`` for the document).
        case tooLarge(limit: Int)
        /// `open`, `fstat` or `read` failed with this errno (EISDIR for a directory).
        case system(errno: Int32)
        /// It is no regular file (a FIFO, socket or device would block or never end).
        case notARegularFile
    }

    /// The bytes of the file at `path`, refused past `sizeLimit` before they are all read.
    package static func read(atPath path: String, sizeLimit: Int = CXFDocument.defaultSizeLimit)
        throws(ReadFailure) -> [UInt8]
    {
        do {
            // Any regular file: a document from another exporter may belong to anyone (a USB stick).
            return try readRegularFile(atPath: path, limit: sizeLimit, trust: .anyRegularFile)
        } catch {
            switch error {
            case .overLimit: throw .tooLarge(limit: sizeLimit)
            case .system(let code): throw .system(errno: code)
            case .refused: throw .notARegularFile
            }
        }
    }
}
