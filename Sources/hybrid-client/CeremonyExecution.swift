import ArgumentParser
import Foundation
import HybridClient
import Logging

/// Runs one ceremony for `create` or `get`: progress to stderr, the response JSON to stdout, and
/// the exit status of ``ExitStatus``.
struct CeremonyExecution {
    let arguments: ConnectionArguments
    let options: HybridClientOptions

    func run(_ request: HybridClientRequest) async throws {
        var logger = Logger(label: "hybrid-client") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = arguments.verbose ? .debug : .warning
        let runner = HybridClientRunner(options: options, logger: logger)
        let reporter = ProgressReporter(json: arguments.json, qrFile: arguments.qrFile, timeout: options.timeout)
        do {
            let response = try await cancellingOnInterrupt {
                try await runner.run(request) { reporter.report($0) }
            }
            FileHandle.standardOutput.write(response.json + Data("\n".utf8))
        } catch let error as HybridClientError {
            reporter.reportFailure(error.description, kind: ExitStatus.kind(error), ctapStatus: error.ctapStatus)
            throw ExitCode(ExitStatus.forError(error))
        } catch is Interrupted {
            reporter.reportFailure("interrupted", kind: "interrupted")
            throw ExitCode(ExitStatus.interrupted)
        }
    }
}
