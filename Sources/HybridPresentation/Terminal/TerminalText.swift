/// Text from input (a peer's RP ID or user name, a file's names, a request's origin) made safe to
/// show on a terminal. The executables write through ``Console``, which applies it to everything.
package enum TerminalText {
    /// `text` with control characters (C0, DEL, C1: escape sequences, carriage returns) and
    /// bidirectional overrides and isolates replaced by `?`, so that a client's request cannot
    /// rewrite, hide or reorder the prompt around it. For one field: a line feed becomes `?` too.
    package static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { isUnsafe($0) ? "?" : $0 }))
    }

    /// ``printable(_:)`` for whole messages: line feeds are kept (the message's own line breaks),
    /// everything else unsafe becomes `?`.
    package static func printableLines(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0 != "\n" && isUnsafe($0) ? "?" : $0 }))
    }

    /// A JSON text with every unsafe scalar written as a `\uXXXX` escape. In valid JSON such a
    /// scalar can only stand inside a string, where the escape means the same scalar (each is in
    /// the Basic Multilingual Plane), so the value is unchanged and nothing reaches the terminal.
    /// The JSON whitespace (tab, line feed, carriage return) outside strings is kept.
    package static func jsonEscaped(_ json: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            guard isUnsafe(scalar), !["\t", "\n", "\r"].contains(scalar) else {
                out.append(scalar)
                continue
            }
            let hex = String(scalar.value, radix: 16, uppercase: true)
            out.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
        }
        return String(out)
    }

    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.properties.generalCategory == .control { return true }
        switch scalar.value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}
