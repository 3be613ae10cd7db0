import HybridBluetooth

extension ServeContext {
    /// The most L2CAP channels served at once before one of them carries the client's
    /// authenticated messages. Anyone nearby may open one (the PSM is in the advert), so a channel
    /// that stays silent or sends garbage must neither take the session nor keep the client out.
    static let maxOpenL2CAPChannels = 4

    /// Serves the client's BLE L2CAP channel (CTAP 2.3, protocol.md §3.4): accepts every channel
    /// opened to `listener`'s PSM, each with a serve loop of its own (at most
    /// ``maxOpenL2CAPChannels`` at once); one that fails or closes before an authenticated message
    /// is dropped and the next is accepted.
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
                        var loop = self.loop(on: messages)
                        return .ended(try await loop.run())
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
