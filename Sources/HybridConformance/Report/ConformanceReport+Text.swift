extension ConformanceReport {
    /// The human report: one line per check, then the counts.
    ///
    ///     PASS relay.subprotocol.echoed  the relay echoes "fido.cable"  (protocol.md §5.1)
    ///          echoed "fido.cable"
    ///     ...
    ///     relay http://127.0.0.1:8080: 20 required, 31 passed, 1 failed, 0 warnings, 2 skipped
    package func humanText() -> String {
        var lines: [String] = []
        for result in results {
            lines.append(
                "\(result.outcome.rawValue.uppercased()) \(result.check.id)  \(result.check.title)  (\(result.check.reference))"
            )
            if !result.observed.isEmpty { lines.append("     \(result.observed)") }
        }
        lines.append(summaryLine)
        return lines.joined(separator: "\n") + "\n"
    }

    /// `MODE SUBJECT: N required, N passed, N failed, N warnings, N skipped`: how many of the
    /// checks that ran are required, then the outcomes of all of them.
    package var summaryLine: String {
        "\(mode) \(subject): \(requiredCount) required, \(count(.pass)) passed, \(count(.fail)) failed, "
            + "\(count(.warn)) warnings, \(count(.skip)) skipped"
    }
}
