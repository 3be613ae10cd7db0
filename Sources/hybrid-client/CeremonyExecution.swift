import ArgumentParser
import Foundation
import HybridClient
import Logging
import Synchronization

/// Runs one ceremony for `create` or `get`: progress to stderr, the response JSON to stdout as
/// soon as it is ready, then the linger (`--linger`, protocol.md §7.5) until the phone closes the
/// tunnel, and the exit status of ``ExitStatus``.
struct CeremonyExecution {
    let arguments: ConnectionArguments
    let options: HybridClientOptions

    func run(_ request: HybridClientRequest) async throws {
        var logger = Logger(label: "hybrid-client") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = arguments.verbose ? .debug : .warning
        let runner = HybridClientRunner(options: options, logger: logger)
        let reporter = ProgressReporter(
            json: arguments.json, qrFile: arguments.qrFile, timeout: options.timeout, printQRURL: arguments.printQRURL)
        // Success, failure, timeout and Ctrl-C / SIGTERM (both cancel) all come through here.
        defer { reporter.finish() }
        let printed = PrintedFlag()
        do {
            let end = try await cancellingOnInterrupt {
                try await runner.run(request) {
                    reporter.report($0)
                } onResponse: { response in
                    // FileHandle writes straight to the descriptor: nothing is left in a buffer.
                    FileHandle.standardOutput.write(response.json + Data("\n".utf8))
                    printed.value.store(true, ordering: .sequentiallyConsistent)
                }
            }
            reporter.reportEnd(end)
        } catch is Interrupted where printed.value.load(ordering: .sequentiallyConsistent) {
            return  // Ctrl-C while lingering: the answer is out; end the linger and succeed.
        } catch let error as HybridClientError {
            reporter.reportFailure(error.description, kind: ExitStatus.kind(error), ctapStatus: error.ctapStatus)
            throw ExitCode(ExitStatus.forError(error))
        } catch is Interrupted {
            reporter.reportFailure("interrupted", kind: "interrupted")
            throw ExitCode(ExitStatus.interrupted)
        }
    }
}

/// Whether the answer has been printed, set from the runner's task.
private final class PrintedFlag: Sendable {
    let value = Atomic(false)
}
