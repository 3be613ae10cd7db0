#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why ``QRImageReader`` found no QR text in an image file. Every case reads as one line for a
/// user (``description``).
public enum QRImageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file could not be opened or read; `errno` says why (e.g. `ENOENT`, `EACCES`, `EISDIR`).
    case unreadable(path: String, errno: Int32)
    /// The file is larger than `QRImageReader/maximumFileSize` bytes, or its image larger than
    /// `QRImageReader/maximumPixelCount` pixels.
    case tooLarge(path: String)
    /// The file does not start like a PNG or a JPEG.
    case notAnImage(path: String)
    /// The file starts like a PNG or JPEG but its decoder gave up; `reason` is the decoder's message.
    case undecodable(path: String, reason: String)
    /// The image decoded, but zbar found no QR code in it.
    case noQRCode(path: String)

    /// One line for a user.
    public var description: String {
        switch self {
        case .unreadable(let path, let errno):
            "cannot read the QR image \(path): \(String(cString: strerror(errno)))"
        case .tooLarge(let path):
            "the QR image \(path) is too large (at most \(QRImageReader.maximumFileSize >> 20) MiB and "
                + "\(QRImageReader.maximumPixelCount / 1_000_000) megapixels)"
        case .notAnImage(let path):
            "\(path) is not a PNG or JPEG image"
        case .undecodable(let path, let reason):
            "the image \(path) is damaged (\(reason))"
        case .noQRCode(let path):
            "no QR code found in \(path) (crop the screenshot to the code, or paste the FIDO:/ text instead)"
        }
    }
}
