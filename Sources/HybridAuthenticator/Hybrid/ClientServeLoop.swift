import HybridCTAP
import HybridCore
import HybridTransport
import Logging

/// The inner driver loop of a run on one channel (the tunnel or the L2CAP channel), from the
/// client's first message to the end of the session: reads the client's messages, feeds them to
/// the ``AuthenticatorSession`` and performs its actions in order. CTAP requests go to the
/// ``CTAPAuthenticator``. No protocol bytes are made here.
///
/// When a run offers several channels, one loop waits on each; the first to receive a message takes
/// the ``ClientChannelClaim`` and serves, and the others give up quietly. On a channel anyone can
/// open (L2CAP), only an authenticated message counts: a failure or close before one ends that
/// loop alone.
struct ClientServeLoop<Channel: ClientChannel> {
    var session: AuthenticatorSession
    var channel: Channel
    /// The run's claim, advertiser, engine, observers and hooks.
    let context: ServeContext
    private let claimant = ClientChannelClaim.Claimant()
    var summary = AuthenticatorRunSummary()
    private var hasClient = false
    /// Called when the first message arrives, before it may claim the session. `false` (the
    /// channel's first-message deadline ran out just then) ends the loop as a closed channel would.
    var firstMessageArrived: @Sendable () -> Bool = { true }

    /// A loop on `channel` for the session as `context` holds it.
    init(channel: Channel, context: ServeContext) {
        self.session = context.session
        self.channel = channel
        self.context = context
    }

    /// Serves until the client sends shutdown (then closes the channel) or the channel closes.
    /// Returns `nil`, having closed its channel, if the client chose another channel, or if a
    /// channel anyone can open ended before its first authenticated message.
    /// - Throws: `SessionError`, `TunnelClientError`, ``L2CAPFramingError``, `BluetoothError` or
    ///   ``AuthenticatorRunnerError``, unless the client chose the other channel.
    mutating func run() async throws -> AuthenticatorRunSummary? {
        do {
            let summary = try await serve()
            await channel.reportClose(to: context.tap)
            return summary
        } catch {
            guard hasClient || !channel.anyoneCanOpen, context.claim.take(for: claimant) else {
                if !hasClient {
                    context.logger.debug(
                        "a channel failed before the client's first message", metadata: ["error": "\(error)"])
                }
                await channel.close(timeout: .seconds(1))
                return nil
            }
            // Advertising off first (it may be on the air), then a clean close.
            await context.advertising.stop()
            await channel.close(timeout: .seconds(1))
            await channel.reportClose(to: context.tap)
            throw error
        }
    }

    private mutating func serve() async throws -> AuthenticatorRunSummary? {
        while let message = try await channel.next(
            expecting: .next(handshakeDone: session.handshakeHash != nil), accepting: acceptsMessage)
        {
            if !hasClient {
                guard firstMessageArrived() else { return nil }
                guard context.claim.take(for: claimant) else {
                    context.logger.debug("the client chose the other channel", metadata: ["channel": "\(channel.kind)"])
                    await channel.close(timeout: .seconds(1))
                    return nil
                }
                hasClient = true
                context.clientConnected.yield()
                context.clientConnected.finish()
                context.emit(.connected(channel: channel.kind))
                context.logger.debug("client connected", metadata: ["channel": "\(channel.kind)"])
            }
            let handshaking = session.handshakeHash == nil
            let actions: [AuthenticatorSession.Action]
            do {
                actions = try session.messageReceived(message)
                context.tap.clientMessage(.init(bytes: message, paddedPlaintext: session.lastClientPlaintext))
            } catch {
                context.tap.clientMessage(
                    .init(bytes: message, paddedPlaintext: session.lastClientPlaintext, error: error))
                throw error
            }
            // A message sent as the session finishes is the update a late-update phone sends
            // after the client's shutdown (`sendsUpdateLate`).
            if session.isFinished, actions.contains(where: \.isSend), context.tap.lateUpdateDelay > .zero,
                let closedAfter = try await Self.wait(
                    context.tap.lateUpdateDelay, on: context.clock, unlessClosed: channel.whenClosed)
            {
                // The client closed after its shutdown, before the late update was due.
                context.logger.debug("the client closed the tunnel before the late update")
                context.tap.clientClosedBeforeLateUpdate(closedAfter)
                return summary
            }
            let finished = try await perform(actions, sent: handshaking ? .handshake : .update)
            if handshaking, session.handshakeHash != nil {
                context.emit(.handshakeDone)
                context.logger.debug("handshake done")
            }
            if finished {
                await channel.close(timeout: TunnelConnection.closeEchoTimeout)
                return summary
            }
        }
        guard hasClient || !channel.anyoneCanOpen, context.claim.take(for: claimant) else { return nil }
        do {
            _ = try session.tunnelClosed()
        } catch {
            throw await channel.closedEarly(clientConnected: hasClient)
        }
        return summary
    }

    /// Whether a candidate cut of the L2CAP byte stream is a whole message: a copy of the session
    /// can open it (§10.9). The deframer offers only cuts of the expected shape (msg1: exactly 81
    /// bytes), and few of them, so a stranger's bytes cost at most one trial each message.
    private var acceptsMessage: ([UInt8]) -> Bool {
        let snapshot = session
        return { snapshot.authenticates($0) }
    }

    /// Performs `actions` in order; returns whether the session finished. `sent` is what the
    /// first message sent is (msg2 is followed by the post-handshake message, then updates).
    private mutating func perform(
        _ actions: [AuthenticatorSession.Action], sent: PhoneMessageKind
    ) async throws -> Bool {
        var kind = sent
        for action in actions {
            switch action {
            case .stopAdvertising:
                await context.advertising.stop()
            case .send(let bytes):
                for message in context.tap.outgoing(kind, bytes) { try await channel.send(message) }
                kind = kind == .handshake ? .postHandshake : .update
            case .deliverRequest(let request):
                if context.tap.neverAnswers {
                    context.logger.debug("not answering the request (conformance fault)")
                    return false
                }
                let replies = try await answer(request)
                if try await perform(replies, sent: .reply) { return true }
                if context.tap.hangsUpAfterReply { return true }
            case .finish:
                return true
            case .openTunnel, .startAdvertising:
                throw AuthenticatorRunnerError.unexpectedSessionAction
            }
        }
        return false
    }

    /// Serves one request and returns what the session wants sent back. A JSON request (type 03)
    /// reaches here only when the post-handshake message offered `"dc"` (the session refuses it
    /// otherwise) and goes to the wallet (`ClientServeLoop+DigitalCredentials.swift`).
    private mutating func answer(_ request: HybridPayload) async throws -> [AuthenticatorSession.Action] {
        switch request {
        case .json(let bytes):
            return try await answerDigitalCredentialRequest(bytes)
        case .ctap(let bytes):
            let command = bytes.first.map(CTAPCommand.init(rawValue:))
            context.emit(.request(command: command, rpID: (try? CTAPRequest(bytes: bytes))?.relyingPartyID))
            guard let outcome = await Self.process(bytes, with: context.authenticator, unlessClosed: channel.whenClosed)
            else {
                try Task.checkCancellation()
                context.logger.debug("the client closed the channel while its request was being processed")
                throw await channel.closedEarly(clientConnected: true)
            }
            summary.answers.append(.init(command: outcome.command, rpID: outcome.rpID, status: outcome.status))
            context.emit(outcome.status.isSuccess ? .approved(status: outcome.status) : .denied(status: outcome.status))
            context.logger.debug("request answered", metadata: ["ctap.status": "\(outcome.status.rawValue)"])
            return try session.requestCompleted(.ctap(outcome.response))
        }
    }

    /// Serves `bytes` unless the channel closes first: a browser cancels by closing the tunnel
    /// ("EOF while processing", protocol.md §7.5), and the prompt must not outlive the request.
    /// The request's task is then cancelled and left behind, since a prompt blocked on the terminal
    /// cannot be interrupted; its answer no longer matters. Returns `nil` if the channel closed.
    private static func process(
        _ bytes: [UInt8], with authenticator: CTAPAuthenticator,
        unlessClosed closed: @escaping @Sendable () async -> Void
    ) async -> CTAPAuthenticator.Outcome? {
        await firstUnlessClosed(closed) { await authenticator.process(bytes) }
    }

    /// Waits `delay` on `clock` unless the channel closes first. Returns `nil` once the wait has
    /// run out, or how long after its start (on `clock`) the channel closed.
    /// - Throws: `CancellationError` if the task is cancelled during the wait.
    private static func wait<WaitClock: Clock<Duration>>(
        _ delay: Duration, on clock: WaitClock, unlessClosed closed: @escaping @Sendable () async -> Void
    ) async throws -> Duration? {
        let start = clock.now
        let ranOut = await firstUnlessClosed(closed) { (try? await clock.sleep(for: delay)) != nil }
        try Task.checkCancellation()
        return ranOut == nil ? start.duration(to: clock.now) : nil
    }

    /// Runs `work` in a task of its own unless the channel closes first: returns its result, or
    /// `nil` if the channel closed (or this task was cancelled) before it finished; `work` is then
    /// cancelled and left behind.
    static func firstUnlessClosed<Result: Sendable>(
        _ closed: @escaping @Sendable () async -> Void, _ work: @escaping @Sendable () async -> Result
    ) async -> Result? {
        let (results, continuation) = AsyncStream<Result?>.makeStream()
        let worker = Task { continuation.yield(await work()) }
        // Ends when the channel closes: now, or when the run closes it later.
        Task {
            await closed()
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
