import HybridPresentation

/// A QR code as RGB pixels for the window: black modules on white with the 4-module quiet zone
/// (ISO/IEC 18004 §6.3.8), each module a whole number of pixels so that nothing is blurred.
struct QRPixels: Equatable {
    /// Pixels per side, quiet zone included.
    let side: Int
    /// Row-major, 3 bytes per pixel.
    let rgb: [UInt8]

    static let quietZone = 4
    /// About 9 cm on a 110 dpi screen: scanned from arm's length.
    static let targetSide = 400

    init(matrix: QRCodeMatrix, targetSide: Int = QRPixels.targetSide) {
        let modules = matrix.size + 2 * Self.quietZone
        let scale = max(4, targetSide / modules)
        side = modules * scale
        var rgb = [UInt8](repeating: 0xFF, count: side * side * 3)
        for y in 0..<side {
            for x in 0..<side where matrix.isDark(x: x / scale - Self.quietZone, y: y / scale - Self.quietZone) {
                let offset = (y * side + x) * 3
                rgb[offset] = 0
                rgb[offset + 1] = 0
                rgb[offset + 2] = 0
            }
        }
        self.rgb = rgb
    }
}
