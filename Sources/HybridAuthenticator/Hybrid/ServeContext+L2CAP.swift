import HybridBluetooth
import HybridDeadline
import Synchronization

extension ServeContext {
    /// The most L2CAP channels served at once before one of them carries the client's
    /// authenticated messages. Anyone nearby may open one (the PSM is in the advert), so a channel
    /// that stays silent or sends garbage must neither take the session nor keep the client out.
    static let maxOpenL2CAPChannels = 4

    /// How long a channel may stay open without an authenticated message before it is dropped, so
    /// that silent channels cannot hold all ``maxOpenL2CAPChannels`` places while the client waits.
    /// A client sends its first message as soon as its channel is open (§10.9): this is many
    /// round trips of BLE.
    static let firstMessageDeadline: Duration = .seconds(5)

    /// Serves the client's BLE L2CAP channel (CTAP 2.3, protocol.md §3.4): accepts every channel
    /// opened to `listener`'s PSM, each with a serve loop of its own (at most
    /// ``maxOpenL2CAPChannels`` at once); one that fails or closes before an authenticated message
    /// is dropped and the next is accepted, as is one without an authenticated message within
    /// ``firstMessageDeadline`` (on ``clock``).
    ///
    /// - Parameter tunnelToo: whether the tunnel serves as well; then a failing listener only loses
    ///   this channel.
    /// - Returns: the summary of the channel that carried the session, or `nil` if the client chose
    ///   the tunnel (or, with `tunnelToo`, the listener failed).
    func serveL2CAP(from listener: any L2CAPChannelSource, tunnelToo: Bool) async throws -> AuthenticatorRunSummary? {
        try await withThrowingTaskGroup(of: L2CAPEvent.self) { group in
            defer { group.cancelAll() }
            var open = 0
            var accepting = true
            group.addTask { await Self.accept(from: listener) }
            while let event = try await group.next() {
                switch event {
                case .accepted(let channel):
                    open += 1
                    group.addTask {
                        guard let messages = try? L2CAPClientChannel(channel) else { return .ended(nil) }
                        let race = FirstMessageRace()
                        let (summary, _) = try await withDeadline(
                            after: Self.firstMessageDeadline, on: clock,
                            onExpiry: { [logger, abort = messages.abort] in
                                guard race.deadlinePassed() else { return }
                                logger.debug("an L2CAP channel sent no authenticated message in time; dropped")
                                abort()
                            }
                        ) {
                            var loop = self.loop(on: messages)
                            loop.firstMessageArrived = { race.messageArrived() }
                            return try await loop.run()
                        }
                        return .ended(summary)
                    }
                    accepting = open < Self.maxOpenL2CAPChannels
                    if accepting { group.addTask { await Self.accept(from: listener) } }
                case .listenerFailed(let error):
                    guard tunnelToo, !(error is CancellationError) else { throw error }
                    logger.info("the L2CAP listener failed; the tunnel still serves", metadata: ["error": "\(error)"])
                    return nil
                case .ended(let summary?):
                    return summary
                case .ended(nil):
                    open -= 1
                    if !accepting {
                        accepting = true
                        group.addTask { await Self.accept(from: listener) }
                    }
                }
            }
            return nil
        }
    }

    /// What one task of ``serveL2CAP(from:tunnelToo:)`` ended with.
    private enum L2CAPEvent: Sendable {
        case accepted(L2CAPChannel)
        case listenerFailed(any Error)
        case ended(AuthenticatorRunSummary?)
    }

    private static func accept(from listener: any L2CAPChannelSource) async -> L2CAPEvent {
        do {
            return .accepted(try await listener.nextChannel())
        } catch {
            return .listenerFailed(error)
        }
    }
}

/// Which came first on one L2CAP channel: its first message or its deadline. Whichever is told
/// second learns that it lost.
private final class FirstMessageRace: Sendable {
    private let winner = Mutex<Winner?>(nil)

    private enum Winner { case message, deadline }

    /// The first message arrived; `false` if the deadline had already passed.
    func messageArrived() -> Bool { claim(.message) }

    /// The deadline passed; `false` if the first message had already arrived.
    func deadlinePassed() -> Bool { claim(.deadline) }

    private func claim(_ candidate: Winner) -> Bool {
        winner.withLock { winner in
            if winner == nil { winner = candidate }
            return winner == candidate
        }
    }
}
