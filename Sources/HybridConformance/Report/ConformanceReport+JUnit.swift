extension ConformanceReport {
    /// JUnit XML, as CI systems read it: one `<testsuite>` named after the mode, one `<testcase>` per
    /// check (`classname` the mode, `name` the check ID) with its level and source as properties.
    /// `fail` becomes `<failure>`, `skip` becomes `<skipped>`; `warn` passes, with the observation in
    /// `<system-out>`. The suite's properties carry the subject and the summary line.
    package func junitXML() -> String {
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        xml += #"<testsuites name="hybrid-conformance">"# + "\n"
        xml += "  <testsuite name=\"\(Self.escape(mode))\" tests=\"\(results.count)\" failures=\"\(count(.fail))\" "
        xml += "errors=\"0\" skipped=\"\(count(.skip))\">\n"
        xml += "    <properties><property name=\"subject\" value=\"\(Self.escape(subject))\"/>"
        xml += "<property name=\"summary\" value=\"\(Self.escape(summaryLine))\"/></properties>\n"
        for result in results {
            let check = result.check
            xml += "    <testcase classname=\"\(Self.escape(mode))\" name=\"\(Self.escape(check.id))\">\n"
            xml += "      <properties><property name=\"level\" value=\"\(check.level)\"/>"
            xml += "<property name=\"source\" value=\"\(Self.escape(check.source))\"/></properties>\n"
            let message = Self.escape(
                "\(check.title) (\(check.reference); source: \(check.source)): \(result.observed)")
            switch result.outcome {
            case .pass: break
            case .fail: xml += "      <failure message=\"\(message)\"/>\n"
            case .skip: xml += "      <skipped message=\"\(message)\"/>\n"
            case .warn: xml += "      <system-out>WARN \(message)</system-out>\n"
            }
            xml += "    </testcase>\n"
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }

    /// Escapes text for an XML attribute or element; drops characters XML 1.0 cannot carry.
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out += "&#\(scalar.value);"
            default:
                if scalar.value < 0x20 || (0xFFFE...0xFFFF).contains(scalar.value) {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
