import ArgumentParser
import Foundation
import HybridConformance
import HybridPresentation

/// `hybrid-conformance`: checks hybrid-transport bytes against published test vectors.
@main
struct HybridConformanceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hybrid-conformance",
        abstract: "Conformance tools for the FIDO hybrid transport (caBLE v2).",
        subcommands: [Vectors.self, RelayCommand.self, PhoneCommand.self, ClientCommand.self]
    )

    struct Vectors: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run test-vector files (SCHEMA.md format, including bundles) against this implementation.",
            discussion: """
                Prints one line per failing case and ends with "N passed, M failed". \
                Exits non-zero when a case fails or a file or kind cannot be read.
                """
        )

        @Argument(help: "Vector files, or directories whose .json files are all run.")
        var paths: [String]

        @Flag(help: "List the kinds this implementation can check, then exit.")
        var listKinds = false

        func run() throws {
            let runner = VectorRunner()
            if listKinds {
                for kind in runner.kinds { print(kind) }
                return
            }
            let report = runner.run(paths: paths)
            for failure in report.failures { Console.writeOutput("\(failure)\n") }
            for error in report.fileErrors { Console.writeOutput("ERROR \(error)\n") }
            print("\(report.passed) passed, \(report.failed) failed")
            if !report.succeeded { throw ExitCode.failure }
        }
    }
}
