import ArgumentParser
import Foundation
import HybridBluetooth
import HybridClient
import HybridCommandLine
import HybridPresentation
import HybridQRWindow
import Synchronization

/// Runs one ceremony for `create` or `get`: progress to stderr (and the QR window with
/// `--window`), the response JSON to stdout as soon as it is ready, then the linger (`--linger`,
/// protocol.md §7.5) until the phone closes the tunnel, and the exit status of ``ExitStatus``.
struct CeremonyExecution {
    let arguments: ConnectionArguments
    let options: HybridClientOptions

    func run(_ request: HybridClientRequest) async throws {
        let logger = arguments.log.logger(label: "hybrid-client")
        let runner = HybridClientRunner(options: options, logger: logger)
        let reporter = ProgressReporter(json: arguments.json, qr: arguments.qr.display(), timeout: options.timeout)
        // Success, failure, timeout and Ctrl-C / SIGTERM (both cancel) all come through here.
        defer { reporter.finish() }
        let printed = PrintedFlag()
        let (windowCancels, cancelFromWindow) = AsyncStream<Void>.makeStream()
        let window =
            arguments.window ? CeremonyWindow(text: Self.windowText(request)) { cancelFromWindow.yield() } : nil
        do {
            let end = try await cancellingOnInterrupt {
                try await AdapterWatch.failingWhenGone(options.bluetooth) {
                    try await cancelling(on: windowCancels, throwing: WindowCancelled()) {
                        try await runner.run(request) {
                            reporter.report($0)
                            window?.report($0)
                        } onResponse: { response in
                            // FileHandle writes straight to the descriptor: nothing is left in a buffer.
                            Console.writeJSONOutput(String(decoding: response.json + Data("\n".utf8), as: UTF8.self))
                            printed.value.store(true, ordering: .sequentiallyConsistent)
                        }
                    }
                }
            }
            await window?.close()
            reporter.reportEnd(end)
        } catch is AdapterGone where printed.value.load(ordering: .sequentiallyConsistent) {
            await window?.close()
            return  // The adapter went away while lingering: the answer is out.
        } catch let gone as AdapterGone {
            // The adapter went away (powered off, rfkill, removed) before the answer.
            await window?.close()
            let failure = HybridClientError.bluetooth(gone.error)
            reporter.reportFailure(failure.description, kind: ExitStatus.kind(failure), ctapStatus: failure.ctapStatus)
            throw ExitCode(ExitStatus.forError(failure))
        } catch is Interrupted where printed.value.load(ordering: .sequentiallyConsistent) {
            await window?.close()
            return  // Ctrl-C while lingering: the answer is out; end the linger and succeed.
        } catch let error as HybridClientError {
            await window?.close()
            reporter.reportFailure(error.description, kind: ExitStatus.kind(error), ctapStatus: error.ctapStatus)
            throw ExitCode(ExitStatus.forError(error))
        } catch is Interrupted {
            await window?.close()
            reporter.reportFailure("interrupted", kind: "interrupted")
            throw ExitCode(ExitStatus.interrupted)
        } catch is WindowCancelled where printed.value.load(ordering: .sequentiallyConsistent) {
            await window?.close()
            return  // The answer is out; the window was only lingering.
        } catch is WindowCancelled {
            await window?.close()
            reporter.reportFailure("cancelled in the QR window", kind: "cancelled")
            throw ExitCode(ExitStatus.cancelled)
        }
    }

    /// The window's text: what the request asks, for which RP ID.
    static func windowText(_ request: HybridClientRequest) -> QRWindowText {
        switch request {
        case .registration(let ceremony): QRWindowText(operation: .register, rpID: ceremony.rpID)
        case .authentication(let ceremony): QRWindowText(operation: .signIn, rpID: ceremony.rpID)
        }
    }
}

/// The person cancelled in the QR window.
private struct WindowCancelled: Error {}

/// Whether the answer has been printed, set from the runner's task.
private final class PrintedFlag: Sendable {
    let value = Atomic(false)
}
