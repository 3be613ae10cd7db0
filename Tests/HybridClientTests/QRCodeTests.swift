import Foundation
import HybridLocalFiles
import Testing

@testable import HybridClient
@testable import HybridPresentation

/// QR output read back by an independent decoder (zbarimg, from zbar-tools) and by re-parsing our own
/// renderings into bitmaps.
@Suite struct QRCodeTests {
    static let zbarimgMissing = "zbarimg not found: apt-get install zbar-tools"

    /// Decodes a PNG file with zbarimg and returns the text it found.
    static func zbarDecode(png: [UInt8]) async throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-qr-\(UUID().uuidString).png")
        try Data(png).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let output = try await ExternalTool.run("zbarimg", ["--raw", "-q", url.path])
        var text = String(decoding: output, as: UTF8.self)
        if text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    @Test func pngDecodesToTheFIDOURL() async throws {
        try #require(await ExternalTool.exists("zbarimg"), Comment(rawValue: Self.zbarimgMissing))
        let urls = try SharedVectors.qrURLs()
        try #require(!urls.isEmpty)
        for url in urls {
            let matrix = try QRCodeMatrix(encoding: url)
            #expect(try await Self.zbarDecode(png: QRImageWriter().png(matrix)) == url)
        }
    }

    @Test func pngAtOnePixelPerModuleAndHighECC() async throws {
        try #require(await ExternalTool.exists("zbarimg"), Comment(rawValue: Self.zbarimgMissing))
        let url = try #require(try SharedVectors.qrURLs().first)
        let matrix = try QRCodeMatrix(encoding: url, errorCorrection: .high)
        #expect(try await Self.zbarDecode(png: QRImageWriter(pixelsPerModule: 3).png(matrix)) == url)
    }

    /// The smallest version for an alphanumeric `FIDO:/` segment plus a numeric digit segment at level L,
    /// computed from ISO/IEC 18004 (segment bit lengths and Table 7 data capacities).
    static func smallestMixedModeVersion(forDigits digits: Int) -> Int {
        let dataCodewordsL = [
            19, 34, 55, 80, 108, 136, 156, 194, 232, 274, 324, 370, 428, 461, 523, 589, 647, 721, 795, 861,
        ]
        for (index, codewords) in dataCodewordsL.enumerated() {
            let version = index + 1
            let (alphaCount, numericCount) = version <= 9 ? (9, 10) : (11, 12)
            let alphanumeric = 4 + alphaCount + 11 * 3  // "FIDO:/" = 3 pairs
            let numeric = 4 + numericCount + 10 * (digits / 3) + [0, 4, 7][digits % 3]
            if alphanumeric + numeric <= codewords * 8 { return version }
        }
        return 40
    }

    /// The smallest version if the whole string went in one 8-bit segment.
    static func smallestByteModeVersion(forLength length: Int) -> Int {
        let dataCodewordsL = [
            19, 34, 55, 80, 108, 136, 156, 194, 232, 274, 324, 370, 428, 461, 523, 589, 647, 721, 795, 861,
        ]
        for (index, codewords) in dataCodewordsL.enumerated() {
            let countBits = index + 1 <= 9 ? 8 : 16
            if 4 + countBits + 8 * length <= codewords * 8 { return index + 1 }
        }
        return 40
    }

    @Test func mixedModeKeepsTheSymbolSmall() async throws {
        for url in try SharedVectors.qrURLs() {
            let matrix = try QRCodeMatrix(encoding: url)
            let digits = url.utf8.count - "FIDO:/".utf8.count
            let best = Self.smallestMixedModeVersion(forDigits: digits)
            #expect(matrix.version <= best, "\(url.prefix(20))…: version \(matrix.version), expected ≤ \(best)")
            #expect(best < Self.smallestByteModeVersion(forLength: url.utf8.count))
            #expect(matrix.size == 17 + 4 * matrix.version)
        }
    }

    @Test func rejectsNUL() {
        #expect(throws: QRCodeMatrixError.containsNUL) { try QRCodeMatrix(encoding: "FIDO:/1\u{0}2") }
    }

    /// Turns half-block text back into a bitmap, `true` = dark module.
    static func bitmap(fromTerminal text: String, glyphsMeanDark: Bool) -> [[Bool]] {
        var stripped = text.replacingOccurrences(of: "\u{1B}[40;97m", with: "")
        stripped = stripped.replacingOccurrences(of: "\u{1B}[0m", with: "")
        var rows: [[Bool]] = []
        for line in stripped.split(separator: "\n") {
            var top: [Bool] = []
            var bottom: [Bool] = []
            for character in line {
                let (upper, lower): (Bool, Bool) =
                    switch character {
                    case "█": (true, true)
                    case "▀": (true, false)
                    case "▄": (false, true)
                    case " ": (false, false)
                    default: (!glyphsMeanDark, !glyphsMeanDark)  // unexpected glyphs make the comparison fail
                    }
                top.append(upper == glyphsMeanDark)
                bottom.append(lower == glyphsMeanDark)
            }
            rows.append(top)
            rows.append(bottom)
        }
        return rows
    }

    @Test(arguments: [TerminalQRRenderer.Palette.ansi, .lightOnDark, .darkOnLight])
    func terminalRenderingMatchesModules(_ palette: TerminalQRRenderer.Palette) throws {
        let url = try #require(try SharedVectors.qrURLs().first)
        let matrix = try QRCodeMatrix(encoding: url)
        let text = TerminalQRRenderer(palette: palette).render(matrix)
        let rows = Self.bitmap(fromTerminal: text, glyphsMeanDark: palette == .darkOnLight)
        let side = matrix.size + 8
        try #require(rows.count == side + 1)  // the odd height gets a light half row
        #expect(rows.allSatisfy { $0.count == side })
        var mismatches = 0
        for y in 0..<side {
            for x in 0..<side {
                let expected =
                    (4..<(4 + matrix.size)).contains(x) && (4..<(4 + matrix.size)).contains(y)
                    && matrix.modules[(y - 4) * matrix.size + (x - 4)]
                if rows[y][x] != expected { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
        #expect(rows[side].allSatisfy { !$0 })
        if palette == .ansi {
            #expect(
                text.split(separator: "\n").allSatisfy { $0.hasPrefix("\u{1B}[40;97m") && $0.hasSuffix("\u{1B}[0m") }
            )
        } else {
            #expect(!text.contains("\u{1B}"))
        }
    }

    @Test func terminalRenderingScans() async throws {
        try #require(await ExternalTool.exists("zbarimg"), Comment(rawValue: Self.zbarimgMissing))
        let url = try #require(try SharedVectors.qrURLs().last)
        let text = TerminalQRRenderer(palette: .lightOnDark).render(try QRCodeMatrix(encoding: url))
        let rows = Self.bitmap(fromTerminal: text, glyphsMeanDark: false)
        // Rebuild an image from the terminal picture alone (one module = 6 × 6 pixels) and scan it.
        let png = PNGEncoder.encode(width: rows[0].count * 6, height: rows.count * 6) { x, y in rows[y / 6][x / 6] }
        #expect(try await Self.zbarDecode(png: png) == url)
    }

    @Test func svgHoldsExactlyTheDarkModules() async throws {
        let url = try #require(try SharedVectors.qrURLs().first)
        let matrix = try QRCodeMatrix(encoding: url)
        let svg = QRImageWriter().svg(matrix)
        let side = matrix.size + 8
        #expect(svg.contains("viewBox=\"0 0 \(side) \(side)\""))
        #expect(svg.contains("<rect width=\"\(side)\" height=\"\(side)\" fill=\"#ffffff\"/>"))
        // Every "M x y" in the path is one dark module, offset by the quiet zone.
        let path = try #require(svg.split(separator: "d=\"").last?.split(separator: "\"").first)
        var drawn = Set<[Int]>()
        for command in path.split(separator: "M") {
            let numbers = command.prefix { $0 != "h" }.split(separator: " ").compactMap { Int($0) }
            drawn.insert(numbers)
        }
        var expected = Set<[Int]>()
        for y in 0..<matrix.size {
            for x in 0..<matrix.size where matrix.modules[y * matrix.size + x] { expected.insert([x + 4, y + 4]) }
        }
        #expect(drawn == expected)
    }

    @Test func writesFiles() async throws {
        try #require(await ExternalTool.exists("zbarimg"), Comment(rawValue: Self.zbarimgMissing))
        let url = try #require(try SharedVectors.qrURLs().first)
        let matrix = try QRCodeMatrix(encoding: url)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-qr-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pngPath = directory.appendingPathComponent("code.png").path
        let svgPath = directory.appendingPathComponent("code.SVG").path
        try QRImageWriter().write(matrix, toFile: pngPath)
        try QRImageWriter().write(matrix, toFile: svgPath)
        #expect(try await Self.zbarDecode(png: [UInt8](Data(contentsOf: URL(fileURLWithPath: pngPath)))) == url)
        #expect(try String(contentsOfFile: svgPath, encoding: .utf8).hasPrefix("<?xml"))
        #expect(throws: PrivateFileError.system(operation: "create", path: "/nonexistent-dir/x.png", errno: ENOENT)) {
            try QRImageWriter().write(matrix, toFile: "/nonexistent-dir/x.png")
        }
    }
}
