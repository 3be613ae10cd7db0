import HybridCore
import HybridDeadline
import HybridTransport

extension HybridClientRunner {
    /// Keeps the tunnel open after the shutdown (protocol.md §7.5): every message still goes to
    /// the session, so a late update is handled exactly like one before the reply, and a late reply
    /// is discarded (§7.3). Ends when the phone closes the tunnel, when `limit` has passed on
    /// ``HybridClientOptions/clock`` (the client then closes it), on the first invalid message, or
    /// on cancellation; the tunnel is closed when this returns.
    func lingerForLateUpdates(
        session: inout ClientSession,
        over connection: TunnelConnection,
        messages: inout TunnelMessages.AsyncIterator,
        limit: Duration,
        observer: any HybridSessionObserver
    ) async -> HybridSessionEnd {
        let clock = options.clock
        var lateUpdates = 0
        var failure: HybridClientError?
        // When the limit runs out, the timer closes the tunnel, which ends the read below.
        let (_, expired) = await withDeadline(after: limit, on: clock, onExpiry: { await connection.close() }) {
            do {
                while let message = try await messages.next() {
                    if let advert = session.advert { observer.messageReceived(message, advert: advert) }
                    for case .updateReceived in try session.messageReceived(message) { lateUpdates += 1 }
                }
            } catch let error as SessionError {
                failure = .session(error)
            } catch let error as TunnelClientError {
                failure = .tunnel(error)
            } catch {
                failure = .invalidResponse(.unexpected(UnexpectedError(error)))
            }
        }
        let cancelled = Task.isCancelled
        // After an invalid message; otherwise already closed. A cancelled task still sends the
        // close frame but does not wait for the answer.
        await connection.close(timeout: cancelled ? .zero : TunnelConnection.closeEchoTimeout)
        // A read that fails after our own close says nothing about the phone.
        let reason: HybridSessionEnd.Reason =
            if expired { .lingerExpired } else if cancelled { .cancelled } else if let failure {
                .failed(failure)
            } else { .phoneClosed }
        return HybridSessionEnd(reason: reason, lateUpdates: lateUpdates)
    }
}
