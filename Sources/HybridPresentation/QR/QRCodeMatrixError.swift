/// Why ``QRCodeMatrix`` could not draw a QR code (writing it fails with `PrivateFileError`).
public enum QRCodeMatrixError: Error, Hashable, Sendable {
    /// The text contains a NUL character, which libqrencode's string API cannot carry.
    case containsNUL
    /// The text does not fit in a version-40 symbol at the chosen error-correction level.
    case tooLong
    /// libqrencode failed for another reason; the `errno` it left.
    case encoderFailed(Int32)
}
