import Foundation
import HybridLocalFiles

/// Writes a QR code as a PNG or SVG image, dark modules on white, with a quiet zone.
public struct QRImageWriter: Sendable {
    /// Light modules around the symbol; the QR specification asks for 4.
    public var quietZone: Int
    /// PNG pixels per module.
    public var pixelsPerModule: Int

    /// A writer with a 4-module quiet zone (the QR minimum) and 8 pixels per module by default.
    public init(quietZone: Int = 4, pixelsPerModule: Int = 8) {
        precondition(quietZone >= 0 && pixelsPerModule > 0, "invalid image geometry")
        self.quietZone = quietZone
        self.pixelsPerModule = pixelsPerModule
    }

    /// The PNG file bytes (1-bit greyscale).
    public func png(_ matrix: QRCodeMatrix) -> [UInt8] {
        let side = (matrix.size + 2 * quietZone) * pixelsPerModule
        return PNGEncoder.encode(width: side, height: side) { x, y in
            matrix.isDark(x: x / pixelsPerModule - quietZone, y: y / pixelsPerModule - quietZone)
        }
    }

    /// The SVG document: a white square and one path made of 1 × 1 squares for the dark modules,
    /// in module units (scale it freely).
    public func svg(_ matrix: QRCodeMatrix) -> String {
        let side = matrix.size + 2 * quietZone
        var path = ""
        for y in 0..<matrix.size {
            for x in 0..<matrix.size where matrix.isDark(x: x, y: y) {
                path += "M\(x + quietZone) \(y + quietZone)h1v1h-1z"
            }
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(side) \(side)" \
            width="\(side * pixelsPerModule)" height="\(side * pixelsPerModule)" shape-rendering="crispEdges">
            <rect width="\(side)" height="\(side)" fill="#ffffff"/>
            <path fill="#000000" d="\(path)"/>
            </svg>

            """
    }

    /// Writes the image to `path` as a ``PrivateFile`` (0600, never through a link, never over
    /// another user's file): SVG if the name ends in `.svg`, PNG otherwise.
    package func write(_ matrix: QRCodeMatrix, toFile path: String) throws(PrivateFileError) {
        let bytes = path.lowercased().hasSuffix(".svg") ? Array(svg(matrix).utf8) : png(matrix)
        try PrivateFile.write(bytes, to: path)
    }
}
