import HybridConformance
import HybridCore
import HybridTransport

/// `--slow`: the pending TTL and the idle timeout (protocol.md §5.4), waited out in real time.
/// The three tunnels run at once, so the run takes about the longest of the limits.
extension RelayConformanceRun {
    func checkTimeouts() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await checkPendingExpires() }
            group.addTask { await checkPendingKept() }
            group.addTask { await checkIdle() }
        }
    }

    /// A `/cable/new` nobody joins: when does the relay close it, and is a late join refused?
    private func checkPendingExpires() async {
        let tunnelID = Self.randomTunnelID()
        let limits = options.limits
        do {
            let (close, elapsed, routingID) = try await tunnelClient.withConnection(to: url(.new(tunnelID))) { phone in
                let routingID = try phone.routingID()
                var messages = phone.messages.makeAsyncIterator()
                let (close, elapsed) = await awaitClose(
                    &messages, on: phone, limit: limits.pendingMaximum + options.stepTimeout)
                return (close, elapsed, routingID)
            }
            let closedAfter = close.closed ? elapsed : nil
            var verdict = RelayJudge.atMost(closedAfter, limits.pendingMaximum, what: "closed the pending tunnel")
            if close.closed { verdict = RelayVerdict(verdict.outcome, verdict.observed + " (\(close.summary))") }
            record(RelayChecks.pendingExpires, verdict)
            guard close.closed else {
                recorder.skip(RelayChecks.pendingExpiredRefused, because: "the pending tunnel did not expire")
                return
            }
            let late = await request(upgradeRequest(TunnelPath.connect(routingID, tunnelID).canonicalPath))
            record(RelayChecks.pendingExpiredRefused, RelayJudge.refused([("/cable/connect after expiry", late)]))
        } catch {
            fail([RelayChecks.pendingExpires], error)
        }
    }

    /// A `/cable/new` joined only after the minimum pending time must still pair.
    private func checkPendingKept() async {
        let tunnelID = Self.randomTunnelID()
        let minimum = options.limits.pendingMinimum
        do {
            try await tunnelClient.withConnection(to: url(.new(tunnelID))) { phone in
                let routingID = try phone.routingID()
                try await Task.sleep(for: minimum)
                do {
                    try await tunnelClient.withConnection(to: url(.connect(routingID, tunnelID))) { _ in }
                    record(RelayChecks.pendingKept, RelayVerdict(.pass, "joined after \(RelayJudge.seconds(minimum))"))
                } catch {
                    record(
                        RelayChecks.pendingKept,
                        RelayVerdict(
                            .fail, "joining after \(RelayJudge.seconds(minimum)) failed: \(error)"))
                }
            }
        } catch {
            fail([RelayChecks.pendingKept], error)
        }
    }

    /// A paired tunnel where nobody sends (pings are answered): how long does the relay keep it?
    private func checkIdle() async {
        let limits = options.limits
        await paired([RelayChecks.idleKept, RelayChecks.idleExpires]) { _, _, client, clientMessages in
            let (close, elapsed) = await awaitClose(
                &clientMessages, on: client, limit: limits.idleMaximum + options.stepTimeout)
            let closedAfter = close.closed ? elapsed : nil
            let suffix = close.closed ? " (\(close.summary))" : ""
            let kept = RelayJudge.atLeast(closedAfter, limits.idleMinimum, what: "closed the idle tunnel")
            record(RelayChecks.idleKept, RelayVerdict(kept.outcome, kept.observed + suffix))
            let expires = RelayJudge.atMost(closedAfter, limits.idleMaximum, what: "closed the idle tunnel")
            record(RelayChecks.idleExpires, RelayVerdict(expires.outcome, expires.observed + suffix))
        }
    }
}
