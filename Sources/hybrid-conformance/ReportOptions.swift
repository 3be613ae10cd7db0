import ArgumentParser
import Foundation
import HybridConformance
import HybridPresentation

/// Output options shared by the live modes.
struct ReportOptions: ParsableArguments {
    @Flag(help: "Print the report as JSON (mode, subject, counts, and each check's id, result and observation).")
    var json = false

    @Option(help: "Also write the report as JUnit XML to this file, for CI systems.")
    var junit: String?

    /// Prints the report (human text, or JSON with --json), writes JUnit XML if asked, and exits
    /// non-zero when a check failed.
    func emit(_ report: ConformanceReport) throws {
        if json {
            // The report quotes what the implementation under test sent: through Console.
            Console.writeJSONOutput(String(decoding: try report.jsonData(), as: UTF8.self) + "\n")
        } else {
            Console.writeOutput(report.humanText())
        }
        if let junit {
            try report.junitXML().write(toFile: junit, atomically: true, encoding: .utf8)
        }
        if !report.succeeded { throw ExitCode.failure }
    }
}
