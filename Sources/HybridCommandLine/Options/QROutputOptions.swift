import ArgumentParser
import HybridPresentation

/// `--qr-file` and `--print-qr-url`: where the QR code goes besides the terminal, and the one
/// secrecy rule for it (``QRDisplay``: its text reaches stderr only on a terminal or with
/// `--print-qr-url`). Used by `hybrid-client`, `hybrid-security-key` and `hybrid-conformance client`.
package struct QROutputOptions: ParsableArguments {
    @Option(
        help:
            "Also write the QR code to this new file (.svg for SVG, else PNG), mode 0600; it is deleted when the ceremony ends."
    )
    package var qrFile: String?

    @Flag(
        name: .customLong("print-qr-url"),
        help:
            "Print the QR code and its FIDO:/ URL on stderr even when stderr is not a terminal (it is a secret: keep it out of logs and the journal)."
    )
    package var printQRURL = false

    package init() {}

    /// The QR display these options ask for: the image at `--qr-file`, else `defaultImage`.
    package func display(defaultImage: QRImageFile? = nil) -> QRDisplay {
        QRDisplay(image: qrFile.map { QRImageFile(path: $0) } ?? defaultImage, printQRURL: printQRURL)
    }
}
