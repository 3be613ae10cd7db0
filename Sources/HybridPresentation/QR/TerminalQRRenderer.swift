/// Draws a QR code in a terminal with Unicode half blocks: one character cell holds two modules
/// stacked vertically (`▀` top, `▄` bottom, `█` both, space neither), surrounded by a quiet zone.
///
/// Phones need dark modules on a light background. A glyph is drawn in the terminal's foreground
/// colour, so what the glyphs stand for depends on ``Palette``.
public struct TerminalQRRenderer: Sendable {
    /// How modules are drawn on the terminal.
    public enum Palette: Sendable, Hashable {
        /// Forces black background and bright white foreground with ANSI SGR codes on every line;
        /// glyphs draw the light modules. Looks right on any terminal theme (the default).
        case ansi
        /// No escape codes; glyphs draw the light modules. For dark terminals (light text).
        case lightOnDark
        /// No escape codes; glyphs draw the dark modules. For light terminals (dark text).
        case darkOnLight
    }

    /// Light modules around the symbol; the QR specification asks for 4.
    public var quietZone: Int
    /// The colours used.
    public var palette: Palette

    /// A renderer with a 4-module quiet zone (the QR minimum) and ANSI colours by default.
    public init(quietZone: Int = 4, palette: Palette = .ansi) {
        precondition(quietZone >= 0, "quiet zone cannot be negative")
        self.quietZone = quietZone
        self.palette = palette
    }

    /// The picture as lines joined by `\n` (with a final `\n`). An odd module height is completed with
    /// a light half row, which only widens the bottom quiet zone.
    public func render(_ matrix: QRCodeMatrix) -> String {
        let side = matrix.size + 2 * quietZone
        let glyphsMeanDark = palette == .darkOnLight
        var out = ""
        var row = 0
        while row < side {
            if palette == .ansi { out += "\u{1B}[40;97m" }
            for column in 0..<side {
                let top = matrix.isDark(x: column - quietZone, y: row - quietZone)
                let bottom = row + 1 < side && matrix.isDark(x: column - quietZone, y: row + 1 - quietZone)
                out.append(Self.glyph(top: top == glyphsMeanDark, bottom: bottom == glyphsMeanDark))
            }
            if palette == .ansi { out += "\u{1B}[0m" }
            out += "\n"
            row += 2
        }
        return out
    }

    /// The half-block character with the given halves filled.
    static func glyph(top: Bool, bottom: Bool) -> Character {
        switch (top, bottom) {
        case (true, true): "█"
        case (true, false): "▀"
        case (false, true): "▄"
        case (false, false): " "
        }
    }
}
