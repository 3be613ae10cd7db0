import ArgumentParser
import HybridPresentation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Where the phone side gets the client's QR code: standard input (`-` or nothing), `--qr-image`
/// (a screenshot), or the `FIDO:/` text as the argument (which `ps` shows to every local user)
/// (`hybrid-authenticator serve`, `hybrid-conformance phone`).
package struct QRCodeSourceOptions: ParsableArguments {
    @Argument(help: "The FIDO:/ text of the QR code; '-' or nothing reads it from standard input.")
    package var qrCode: String?

    @Option(
        help: ArgumentHelp(
            "Read the QR code from this PNG or JPEG image (e.g. a screenshot of the browser's QR code) "
                + "instead of the FIDO:/ text argument or standard input.",
            valueName: "file"))
    package var qrImage: String?

    package init() {}

    package func validate() throws {
        if qrImage != nil, qrCode != nil {
            throw ValidationError("give the QR code either as --qr-image or as the FIDO:/ text argument, not both")
        }
    }

    /// The QR text: decoded from `--qr-image`, else the argument, else the first non-blank line of
    /// standard input. With `prompting`, a terminal on standard input is asked for it on standard
    /// error (not with `--json`, whose reader is a program).
    /// - Throws: `QRImageError` or `QRTextInputError`.
    package func read(prompting: Bool) async throws -> String {
        if let qrImage { return try QRImageReader().read(contentsOfFile: qrImage) }
        if let qrCode, qrCode != "-" { return qrCode }
        if prompting, isatty(STDIN_FILENO) == 1 {
            Console.writeError("Paste the FIDO:/ text of the QR code and press Enter: ")
        }
        return try await QRTextInput.readStandardInput()
    }
}
