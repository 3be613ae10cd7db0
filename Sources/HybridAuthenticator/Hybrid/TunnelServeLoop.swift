import HybridCTAP
import HybridCore
import HybridTransport
import Logging

/// The inner driver loop of a run, from the open tunnel to the end of the session: reads tunnel
/// messages, feeds them to the ``AuthenticatorSession`` and performs its actions in order. CTAP
/// requests go to the ``CTAPAuthenticator``. No protocol bytes are made here.
struct TunnelServeLoop {
    var session: AuthenticatorSession
    let connection: TunnelConnection
    let advertising: AdvertisingControl
    let authenticator: CTAPAuthenticator
    let emit: @Sendable (AuthenticatorEvent) -> Void
    /// Yields once, when the client's first message arrives (ends the no-client watchdog).
    let clientConnected: AsyncStream<Void>.Continuation
    let tap: AuthenticatorTap
    let logger: Logger
    private var summary = AuthenticatorRunSummary()
    private var hasClient = false

    init(
        session: AuthenticatorSession, connection: TunnelConnection, advertising: AdvertisingControl,
        authenticator: CTAPAuthenticator, emit: @escaping @Sendable (AuthenticatorEvent) -> Void,
        clientConnected: AsyncStream<Void>.Continuation, tap: AuthenticatorTap = AuthenticatorTap(), logger: Logger
    ) {
        self.tap = tap
        self.session = session
        self.connection = connection
        self.advertising = advertising
        self.authenticator = authenticator
        self.emit = emit
        self.clientConnected = clientConnected
        self.logger = logger
    }

    /// Serves until the client sends shutdown (then closes the tunnel) or the tunnel closes.
    /// - Throws: `SessionError`, `TunnelClientError`, or ``AuthenticatorRunnerError``.
    mutating func run() async throws -> AuthenticatorRunSummary {
        do {
            let summary = try await serve()
            tap.tunnelClosed(await connection.closeInfo())
            return summary
        } catch {
            // Advertising off first (it may be on the air), then a clean close frame.
            await advertising.stop()
            await connection.close(timeout: .seconds(1))
            tap.tunnelClosed(await connection.closeInfo())
            throw error
        }
    }

    private mutating func serve() async throws -> AuthenticatorRunSummary {
        var messages = connection.messages.makeAsyncIterator()
        while let message = try await messages.next() {
            if !hasClient {
                hasClient = true
                clientConnected.yield()
                clientConnected.finish()
                emit(.connected)
                logger.debug("client connected")
            }
            let handshaking = session.handshakeHash == nil
            let actions: [AuthenticatorSession.Action]
            do {
                actions = try session.messageReceived(message)
                tap.clientMessage(.init(bytes: message, paddedPlaintext: session.lastClientPlaintext))
            } catch {
                tap.clientMessage(.init(bytes: message, paddedPlaintext: session.lastClientPlaintext, error: error))
                throw error
            }
            // A message sent as the session finishes is the update a late-update phone sends
            // after the client's shutdown (`sendsUpdateLate`).
            if session.isFinished, actions.contains(where: \.isSend), tap.lateUpdateDelay > .zero,
                let closedAfter = try await Self.wait(tap.lateUpdateDelay, on: tap.clock, unlessClosed: connection)
            {
                // The client closed after its shutdown, before the late update was due.
                logger.debug("the client closed the tunnel before the late update")
                tap.clientClosedBeforeLateUpdate(closedAfter)
                return summary
            }
            let finished = try await perform(actions, sent: handshaking ? .handshake : .update)
            if handshaking, session.handshakeHash != nil {
                emit(.handshakeDone)
                logger.debug("handshake done")
            }
            if finished {
                await connection.close()
                return summary
            }
        }
        do {
            _ = try session.tunnelClosed()
        } catch {
            throw AuthenticatorRunnerError.tunnelClosedEarly(
                clientConnected: hasClient, close: await connection.closeInfo())
        }
        return summary
    }

    /// Performs `actions` in order; returns whether the session finished. `sent` is what the
    /// first message sent is (msg2 is followed by the post-handshake message, then updates).
    private mutating func perform(
        _ actions: [AuthenticatorSession.Action], sent: AuthenticatorTap.OutgoingKind
    ) async throws -> Bool {
        var kind = sent
        for action in actions {
            switch action {
            case .stopAdvertising:
                await advertising.stop()
            case .send(let bytes):
                for message in tap.outgoing(kind, bytes) { try await connection.send(message) }
                kind = kind == .handshake ? .postHandshake : .update
            case .deliverRequest(let request):
                if tap.neverAnswers {
                    logger.debug("not answering the request (conformance fault)")
                    return false
                }
                let replies = try await answer(request)
                if try await perform(replies, sent: .reply) { return true }
                if tap.hangsUpAfterReply { return true }
            case .finish:
                return true
            case .openTunnel, .startAdvertising:
                throw AuthenticatorRunnerError.unexpectedSessionAction
            }
        }
        return false
    }

    /// Serves one request and returns what the session wants sent back.
    ///
    /// JSON requests (type 03, digital credentials) are refused by closing the tunnel normally:
    /// the post-handshake message offers only the `ctap` feature, so a client that sends one has
    /// ignored it, and there is no JSON error format to answer with.
    private mutating func answer(_ request: HybridPayload) async throws -> [AuthenticatorSession.Action] {
        switch request {
        case .json:
            throw AuthenticatorRunnerError.unsupportedRequest(
                "the client sent a JSON (digital credential) request; this authenticator offers only CTAP")
        case .ctap(let bytes):
            let command = bytes.first.map(CTAPCommand.init(rawValue:))
            emit(.request(command: command, rpID: (try? CTAPRequest(bytes: bytes))?.relyingPartyID))
            guard let outcome = await Self.process(bytes, with: authenticator, unlessClosed: connection) else {
                try Task.checkCancellation()
                logger.debug("the client closed the tunnel while its request was being processed")
                throw AuthenticatorRunnerError.tunnelClosedEarly(
                    clientConnected: true, close: await connection.closeInfo())
            }
            summary.answers.append(.init(command: outcome.command, rpID: outcome.rpID, status: outcome.status))
            emit(outcome.status.isSuccess ? .approved(status: outcome.status) : .denied(status: outcome.status))
            logger.debug("request answered", metadata: ["ctap.status": "\(outcome.status.rawValue)"])
            return try session.requestCompleted(.ctap(outcome.response))
        }
    }

    /// Serves `bytes` unless the tunnel closes first: a browser cancels by closing the tunnel
    /// ("EOF while processing", protocol.md §7.5), and the prompt must not outlive the request.
    /// The request's task is then cancelled and left behind, since a prompt blocked on the terminal
    /// cannot be interrupted; its answer no longer matters. Returns `nil` if the tunnel closed.
    private static func process(
        _ bytes: [UInt8], with authenticator: CTAPAuthenticator, unlessClosed connection: TunnelConnection
    ) async -> CTAPAuthenticator.Outcome? {
        await firstUnlessClosed(connection) { await authenticator.process(bytes) }
    }

    /// Waits `delay` on `clock` unless the tunnel closes first. Returns `nil` once the wait has
    /// run out, or how long after its start (on `clock`) the tunnel closed.
    /// - Throws: `CancellationError` if the task is cancelled during the wait.
    private static func wait<WaitClock: Clock<Duration>>(
        _ delay: Duration, on clock: WaitClock, unlessClosed connection: TunnelConnection
    ) async throws -> Duration? {
        let start = clock.now
        let ranOut = await firstUnlessClosed(connection) { (try? await clock.sleep(for: delay)) != nil }
        try Task.checkCancellation()
        return ranOut == nil ? start.duration(to: clock.now) : nil
    }

    /// Runs `work` in a task of its own unless the tunnel closes first: returns its result, or
    /// `nil` if the tunnel closed (or this task was cancelled) before it finished; `work` is then
    /// cancelled and left behind.
    private static func firstUnlessClosed<Result: Sendable>(
        _ connection: TunnelConnection, _ work: @escaping @Sendable () async -> Result
    ) async -> Result? {
        let (results, continuation) = AsyncStream<Result?>.makeStream()
        let worker = Task { continuation.yield(await work()) }
        // Ends when the tunnel closes: now, or when the run closes it later.
        Task {
            _ = await connection.closeInfo()
            continuation.yield(nil)
        }
        var iterator = results.makeAsyncIterator()
        let first = await withTaskCancellationHandler {
            await iterator.next() ?? nil
        } onCancel: {
            worker.cancel()
        }
        continuation.finish()
        if first == nil { worker.cancel() }
        return first
    }
}

extension AuthenticatorSession.Action {
    /// Whether this action sends a message.
    fileprivate var isSend: Bool {
        if case .send = self { return true }
        return false
    }
}

extension CTAPRequest {
    /// The RP ID of a makeCredential or getAssertion request.
    fileprivate var relyingPartyID: String? {
        switch self {
        case .makeCredential(let request): request.rp.id
        case .getAssertion(let request): request.rpID
        case .getInfo, .getNextAssertion, .selection, .other: nil
        }
    }
}
