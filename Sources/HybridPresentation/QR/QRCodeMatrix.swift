import CQREncode

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// QR error-correction level.
public enum QRErrorCorrection: Sendable, Hashable {
    /// About 7 % recovery: the smallest symbol, fine for screens.
    case low
    /// About 15 % recovery.
    case medium
    /// About 25 % recovery.
    case quartile
    /// About 30 % recovery.
    case high

    var libqrencodeLevel: QRecLevel {
        switch self {
        case .low: QR_ECLEVEL_L
        case .medium: QR_ECLEVEL_M
        case .quartile: QR_ECLEVEL_Q
        case .high: QR_ECLEVEL_H
        }
    }
}

/// The modules of a QR code symbol, made by libqrencode.
///
/// Encoding uses `QRcode_encodeString(text, 0, level, QR_MODE_8, 1)`: libqrencode splits the text into
/// optimal segments itself, so a `FIDO:/` URL becomes a short alphanumeric segment (`FIDO:/` uses only
/// QR alphanumeric characters) followed by a numeric segment for the digits (10 bits per 3 digits),
/// which is smaller than encoding the whole string as 8-bit bytes (`QRcode_encodeString8bit`).
/// Case is preserved (`casesensitive` = 1); version 0 lets libqrencode pick the smallest version.
public struct QRCodeMatrix: Sendable, Hashable {
    /// Modules per side (21 for version 1, plus 4 per version).
    public let size: Int
    /// The QR version (1…40).
    public let version: Int
    /// Row-major, `true` = dark module. Excludes the quiet zone.
    public let modules: [Bool]

    /// Encodes `text` as a QR code.
    public init(encoding text: String, errorCorrection: QRErrorCorrection = .low) throws(QRCodeMatrixError) {
        guard !text.utf8.contains(0) else { throw .containsNUL }
        errno = 0
        guard let symbol = QRcode_encodeString(text, 0, errorCorrection.libqrencodeLevel, QR_MODE_8, 1) else {
            throw errno == ERANGE ? .tooLong : .encoderFailed(errno)
        }
        defer { QRcode_free(symbol) }
        let width = Int(symbol.pointee.width)
        // Bit 0 of each byte is the module colour (1 = dark); the other bits are libqrencode bookkeeping.
        let buffer = UnsafeBufferPointer(start: symbol.pointee.data, count: width * width)
        self.size = width
        self.version = Int(symbol.pointee.version)
        self.modules = buffer.map { $0 & 1 == 1 }
    }

    /// Builds a matrix from known modules (row-major, `true` = dark), e.g. for tests.
    package init(size: Int, version: Int, modules: [Bool]) {
        precondition(modules.count == size * size, "modules must hold size × size entries")
        self.size = size
        self.version = version
        self.modules = modules
    }

    /// Whether the module at column `x`, row `y` is dark; positions outside the symbol (the quiet zone)
    /// are light.
    public func isDark(x: Int, y: Int) -> Bool {
        guard (0..<size).contains(x), (0..<size).contains(y) else { return false }
        return modules[y * size + x]
    }
}
