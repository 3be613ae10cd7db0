import HybridCore
import HybridLocalFiles

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads the text of a QR code from a PNG or JPEG file, e.g. a screenshot of the QR code a browser
/// shows (`hybrid-authenticator --qr-image FILE`).
///
/// libpng (simplified API) or TurboJPEG turn the file into 8-bit grey pixels (transparency on white),
/// then zbar looks for QR codes in them, also light-on-dark ones. When the image holds several,
/// the first whose text starts with `FIDO:/` wins, else the first one. The text is returned as it is:
/// checking that it is a valid hybrid QR code is `AuthenticatorRunner.check(qrCode:options:)`'s job.
public struct QRImageReader: Sendable {
    /// Largest file read, in bytes (64 MiB).
    package static let maximumFileSize = 64 << 20
    /// Largest image decoded, in pixels (64 megapixels, e.g. 8000 × 8000).
    package static let maximumPixelCount = 64_000_000

    /// A reader; it keeps no state between images.
    public init() {}

    /// The QR code's text in the image file at `path`.
    public func read(contentsOfFile path: String) throws(QRImageError) -> String {
        try read(imageBytes: try contentsOfRegularFile(path, limit: Self.maximumFileSize), path: path)
    }

    /// The QR code's text in `imageBytes`, a PNG or JPEG file's content; `path` only names it in errors.
    package func read(imageBytes: [UInt8], path: String) throws(QRImageError) -> String {
        let isPNG = imageBytes.starts(with: GreyImage.pngSignature)
        guard isPNG || imageBytes.starts(with: GreyImage.jpegSignature) else { throw .notAnImage(path: path) }
        let image: GreyImage
        do throws(GreyImage.DecodingFailure) {
            image =
                isPNG
                ? try GreyImage(png: imageBytes, maximumPixelCount: Self.maximumPixelCount)
                : try GreyImage(jpeg: imageBytes, maximumPixelCount: Self.maximumPixelCount)
        } catch {
            switch error {
            case .tooLarge: throw .tooLarge(path: path)
            case .decoder(let reason): throw .undecodable(path: path, reason: reason)
            }
        }
        let texts = ZBarQRScanner.texts(in: image)
        guard let first = texts.first else { throw .noQRCode(path: path) }
        return texts.first(where: { QRCodePayload.hasURLPrefix($0) }) ?? first
    }
}

/// The bytes of the file at `path`, at most `limit` of them: any regular file (the image is
/// checked when decoded); a FIFO or device is refused without blocking.
private func contentsOfRegularFile(_ path: String, limit: Int) throws(QRImageError) -> [UInt8] {
    do {
        return try readRegularFile(atPath: path, limit: limit, trust: .anyRegularFile)
    } catch {
        switch error {
        case .system(let code): throw .unreadable(path: path, errno: code)
        case .overLimit: throw .tooLarge(path: path)
        case .refused: throw .notAnImage(path: path)  // a FIFO or device: refused without blocking
        }
    }
}
