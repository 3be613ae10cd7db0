#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The QR code shown to the person: a picture on the terminal, a private image file
/// (``QRImageFile``: 0600, deleted when the ceremony ends), and the rule for when its text may be
/// printed. Every program that shows a QR code shows it through this.
///
/// The QR code is all a phone needs to answer in the user's place, so its picture and its
/// `FIDO:/` URL go to standard error only when that is a terminal or the user asked
/// (`--print-qr-url`): never into a log or the journal. A JSON event line (`--json`) is such a
/// request too; the caller writes it instead of ``text(url:image:)``.
package struct QRDisplay: Sendable {
    /// The image file of the current QR code, if the program writes one.
    package let image: QRImageFile?
    /// Whether the QR code may go to standard error as text (the secrecy rule).
    package let showsQRCode: Bool

    /// A display writing `image` (if any); it shows the QR code as text when `printQRURL` asks or
    /// standard error is a terminal.
    package init(image: QRImageFile?, printQRURL: Bool, stderrIsTerminal: Bool = isatty(STDERR_FILENO) != 0) {
        self.image = image
        self.showsQRCode = printQRURL || stderrIsTerminal
    }

    /// What became of the image file for one QR code.
    package enum ImageOutcome: Sendable, Equatable {
        /// The program writes no image.
        case none
        /// Written at this path.
        case written(String)
        /// Not written, for this reason (a sentence for people).
        case failed(String)

        /// The image's path, when it was written.
        package var path: String? {
            if case .written(let path) = self { path } else { nil }
        }
    }

    /// Draws `url` into the image file, replacing the previous QR code's.
    package func writeImage(of url: String) -> ImageOutcome {
        guard let image else { return .none }
        do {
            return .written(try image.write(try QRCodeMatrix(encoding: url)))
        } catch let error as QRCodeMatrixError {
            return .failed("cannot draw the QR code: \(error)")
        } catch {
            return .failed("cannot write the QR code image: \(error)")
        }
    }

    /// The terminal text for the QR code of `url`: this program's own picture (ANSI colours, to be
    /// written as it is) and the message for people. Without ``showsQRCode`` neither holds the QR code.
    package func text(url: String, image: ImageOutcome) -> (picture: String, message: String) {
        let location = image.path.map { "it is in \($0) (deleted when the ceremony ends)" }
        guard showsQRCode else {
            return (
                "",
                "QR code not shown: stderr is not a terminal"
                    + (location.map { "; " + $0 } ?? " (use --print-qr-url or --qr-file)")
            )
        }
        let picture = (try? QRCodeMatrix(encoding: url)).map { TerminalQRRenderer().render($0) } ?? ""
        let sentence = ClientEventPresentation(.qr(url: url)).sentence
        return (picture, sentence + " (or: \(url))" + (location.map { "; " + $0 } ?? ""))
    }

    /// Deletes the current image (the ceremony ended).
    package func removeImage() { image?.removeImage() }

    /// Deletes the current image and the directory made for it (the program ends).
    package func removeAll() { image?.removeAll() }
}
