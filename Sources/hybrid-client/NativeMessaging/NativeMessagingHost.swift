import ArgumentParser
import Foundation
import HybridClient
import HybridCommandLine
import HybridCore
import HybridLocalFiles
import HybridPresentation
import HybridQRWindow
import Synchronization

/// The host's I/O: frames from stdin, a task per ceremony, answers to stdout. What the messages
/// mean is ``NativeMessagingRequest`` and ``NativeMessagingAnswer``'s (sans-IO).
final class NativeMessagingHost: Sendable {
    /// The most ceremonies at once (one per tab that asks; more are refused with NotAllowedError).
    static let maxCeremonies = 8
    /// The longest a ceremony may take, whatever the page's options say.
    static let maxTimeoutMilliseconds: UInt32 = 600_000

    private let settings: NativeMessagingHostSettings
    private let output = AnswerWriter()
    private let ceremonies = Mutex<[String: Ceremony]>([:])

    /// Why a ceremony's task was cancelled.
    private enum Cancellation {
        case none, aborted, windowCancelled, portClosed
    }

    private struct Ceremony {
        let task: Task<Void, Never>
        let cancellation: CancellationBox
    }

    /// A ceremony's shared state: why it was cancelled, whether it was answered.
    private final class CancellationBox: Sendable {
        let reason = Mutex(Cancellation.none)
        let answered = Mutex(false)
    }

    init(settings: NativeMessagingHostSettings) {
        self.settings = settings
    }

    /// Serves until `input` ends (the port closed), then cancels every ceremony and waits for each
    /// to unwind (phone session and QR window closed).
    func serve(input: AsyncStream<[UInt8]>) async {
        signal(SIGPIPE, SIG_IGN)  // A browser that went away is a write error, not a signal.
        var decoder = NativeMessageFrameDecoder()
        for await chunk in input {
            decoder.append(chunk)
            while true {
                do {
                    guard let message = try decoder.next() else { break }
                    handle(message)
                } catch {
                    output.send(.error(id: nil, name: .hostProtocol, message: error.description))
                }
            }
        }
        let running = ceremonies.withLock { ceremonies in
            defer { ceremonies.removeAll() }
            return Array(ceremonies.values)
        }
        for ceremony in running {
            ceremony.cancellation.reason.withLock { $0 = .portClosed }
            ceremony.task.cancel()
        }
        for ceremony in running { await ceremony.task.value }
    }

    private func handle(_ message: [UInt8]) {
        let request: NativeMessagingRequest
        do { request = try NativeMessagingRequest(json: message) } catch {
            output.send(NativeMessagingAnswer(refusal: error))
            return
        }
        switch request {
        case .hello:
            output.send(.hello)
        case .abort(let id):
            let ceremony = ceremonies.withLock { $0[id] }
            ceremony?.cancellation.reason.withLock { if $0 == .none { $0 = .aborted } }
            ceremony?.task.cancel()
        case .ceremony(let id, let hybridRequest, let optionsTimeout):
            start(id: id, origin: hybridRequest.callingOrigin, optionsTimeout: optionsTimeout) { runner, events, send in
                _ = try await runner.run(hybridRequest, events: events) { response in
                    send(.result(id: id, credential: Array(response.json)))
                }
            } window: {
                CeremonyExecution.windowText(hybridRequest)
            }
        case .digital(let id, let digitalRequest, let origin):
            start(id: id, origin: origin, optionsTimeout: nil) { runner, events, send in
                let credential = try await runner.requestDigitalCredential(
                    digitalRequest, origin: origin, events: events)
                send(.result(id: id, credential: DigitalCredentialCommand.output(credential)))
            } window: {
                // The window has no wording of its own for a credential yet: "Sign in to <host>".
                QRWindowText(operation: .signIn, rpID: origin.host.serialization)
            }
        }
    }

    /// Starts a ceremony's task: the runner from the settings, the QR window, the answer.
    private func start(
        id: String, origin: WebOrigin, optionsTimeout: UInt32?,
        body:
            @escaping @Sendable (
                HybridClientRunner, _ events: @escaping @Sendable (HybridClientEvent) -> Void,
                _ send: @escaping @Sendable (NativeMessagingAnswer) -> Void
            ) async throws -> Void,
        window windowText: @escaping @Sendable () -> QRWindowText
    ) {
        let cancellation = CancellationBox()
        let settings = self.settings
        let output = self.output
        // One answer per request, whichever comes first (the response, or a failure after it).
        let send: @Sendable (NativeMessagingAnswer) -> Void = { answer in
            let first = cancellation.answered.withLock { sent in
                defer { sent = true }
                return !sent
            }
            if first { output.send(answer) }
        }
        let run = {
            Task<Void, Never>.detached { [weak self] in
                defer { self?.finished(id: id, cancellation: cancellation) }
                let arguments: ConnectionArguments
                let options: HybridClientOptions
                do {
                    arguments = try ConnectionArguments.parse(["--origin", origin.serialization] + settings.arguments)
                    let limit = NativeMessagingHost.maxTimeoutMilliseconds
                    options = try await arguments.runnerOptions(optionsTimeout: min(optionsTimeout ?? limit, limit))
                } catch {
                    send(.error(id: id, name: .notAllowed, message: "the host's settings: \(error)"))
                    return
                }
                let logger = arguments.log.logger(label: "hybrid-client")
                let runner = HybridClientRunner(options: options, logger: logger)
                let (windowCancels, cancelFromWindow) = AsyncStream<Void>.makeStream()
                var window: CeremonyWindow?
                if arguments.window {
                    window = CeremonyWindow(text: windowText()) {
                        cancellation.reason.withLock { if $0 == .none { $0 = .windowCancelled } }
                        cancelFromWindow.yield()
                    }
                }
                let shownWindow = window
                let events: @Sendable (HybridClientEvent) -> Void = { event in
                    if case .qr(let url) = event {
                        if let file = settings.qrURLFile {
                            let line = JSONLine.event("qr", [("id", .string(id)), ("url", .string(url))]).text + "\n"
                            try? PrivateFile.append(Array(line.utf8), to: file)
                        }
                        output.send(.progress(id: id, stage: "qr"))  // Not the answer.
                    }
                    shownWindow?.report(event)
                }
                do {
                    try await cancelling(on: windowCancels, throwing: CancellationError()) {
                        try await body(runner, events, send)
                    }
                    await shownWindow?.close()
                } catch let error as HybridClientError {
                    // The answer first: the window shows the reason for a moment after.
                    send(NativeMessagingAnswer(id: id, failure: error))
                    await shownWindow?.close(state: error.description, after: .seconds(2))
                } catch {
                    switch cancellation.reason.withLock({ $0 }) {
                    case .aborted: send(.error(id: id, name: .abort, message: "the request was aborted"))
                    case .windowCancelled, .none:
                        send(.error(id: id, name: .notAllowed, message: "the request was cancelled"))
                    case .portClosed: break  // No one to answer.
                    }
                    await shownWindow?.close()
                }
            }
        }
        // Registered under the lock the task's end also takes, so that its removal comes after.
        let refused = ceremonies.withLock { ceremonies -> NativeMessagingAnswer? in
            if ceremonies[id] != nil {
                return .error(id: id, name: .hostProtocol, message: "a request with this id is already running")
            }
            if ceremonies.count >= NativeMessagingHost.maxCeremonies {
                return .error(id: id, name: .notAllowed, message: "too many requests at once")
            }
            ceremonies[id] = Ceremony(task: run(), cancellation: cancellation)
            return nil
        }
        if let refused { output.send(refused) }
    }

    /// Forgets the ceremony of `id` if it is still the one `cancellation` belongs to.
    private func finished(id: String, cancellation: CancellationBox) {
        ceremonies.withLock { ceremonies in
            if ceremonies[id]?.cancellation === cancellation { ceremonies[id] = nil }
        }
    }
}

/// Writes answers to stdout, one whole frame at a time (tasks answer concurrently).
private final class AnswerWriter: Sendable {
    private let lock = Mutex(())

    func send(_ answer: NativeMessagingAnswer) {
        let frame: [UInt8]
        do { frame = try NativeMessageFraming.frame(answer.json) } catch {
            guard case .result(let id, _) = answer else { return }
            send(.error(id: id, name: .notAllowed, message: "\(error)"))
            return
        }
        lock.withLock { _ in
            var offset = 0
            while offset < frame.count {
                let written = frame.withUnsafeBytes { write(1, $0.baseAddress! + offset, frame.count - offset) }
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }  // The browser is gone; stdin's end follows.
                offset += written
            }
        }
    }
}

extension HybridClientRequest {
    /// The origin the request was made for.
    fileprivate var callingOrigin: WebOrigin {
        switch self {
        case .registration(let ceremony): ceremony.origin
        case .authentication(let ceremony): ceremony.origin
        }
    }
}
