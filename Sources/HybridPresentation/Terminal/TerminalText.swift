/// Text from a peer (an RP ID, a user name) made safe to show on a terminal.
package enum TerminalText {
    /// `text` with control characters (C0, DEL, C1: escape sequences, carriage returns) and
    /// bidirectional overrides and isolates replaced by `?`, so that a client's request cannot
    /// rewrite, hide or reorder the prompt around it.
    package static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { isUnsafe($0) ? "?" : $0 }))
    }

    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.properties.generalCategory == .control { return true }
        switch scalar.value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}
