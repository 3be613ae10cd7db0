import Foundation
import HybridCore
import HybridTransport
import TestLoopbackRelay
import Testing

/// Three real `tunnel-relay` processes behind a real HAProxy (deploy/haproxy.cfg) on loopback,
/// under a steady load of ceremonies through the balancer. Every wait is for an event (HAProxy's
/// health state from its runtime API, a process exit, a ceremony outcome); the suite's time limit
/// only bounds a hang.
@Suite(.serialized, .timeLimit(.minutes(3)), .enabled(if: HAProxyProcess.isInstalled, "haproxy is not installed"))
struct RelayFleetTests {
    static let workers = 6

    /// Starts the fleet and the balancer, waits until HAProxy sees every instance up, runs `body`.
    static func withFleet(
        _ body: (_ instances: [RelayInstanceProcess], _ haproxy: HAProxyProcess, _ balancer: TunnelServerOrigin)
            async throws -> Void
    ) async throws {
        var instances: [RelayInstanceProcess] = []
        for slot in 0..<HAProxyProcess.instanceCount {
            let instance = RelayInstanceProcess(routingPrefix: UInt8(slot + 1))
            try await instance.start()
            instances.append(instance)
        }
        defer { for instance in instances { instance.terminate() } }
        try await HAProxyProcess.with(instancePorts: instances.map(\.port)) { haproxy in
            for instance in instances { try await haproxy.waitFor(instance.serverName, state: .up) }
            let balancer = TunnelServerOrigin(scheme: .ws, host: "127.0.0.1", port: haproxy.frontendPort)
            try await body(instances, haproxy, balancer)
        }
        for instance in instances { await instance.kill() }
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }

    static var loadAverage: String {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(
            separator: " ") ?? "?"
    }

    /// SIGKILL one instance under load: the others' tunnels go on, new tunnels avoid the dead
    /// one once HAProxy marks it down, its routing IDs get a quick 503, and after a restart it
    /// takes new tunnels again.
    @Test func killedInstanceIsRoutedAroundAndRejoins() async throws {
        try await Self.withFleet { instances, haproxy, balancer in
            let victim = instances[1]
            let survivors = Set(instances.map(\.routingPrefix)).subtracting([victim.routingPrefix])
            let held = try await HeldTunnel.open(
                balancer: balancer, perPrefix: 3, prefixes: Set(instances.map(\.routingPrefix)))
            let load = CeremonyLoad(balancer: balancer, workers: Self.workers)
            try await load.waitUntil { $0.filter(\.succeeded).count >= 30 }

            let clock = ContinuousClock()
            let killedAt = clock.now
            await victim.kill()
            try await haproxy.waitFor(victim.serverName, state: .down)
            let downAt = clock.now

            // A routing ID of the dead instance: its connect is refused, and HAProxy (retries 0 in
            // the prefix backends) answers 503 at once, no hang.
            let deadConnectStarted = clock.now
            let stray = try #require(RoutingID(bytes: [victim.routingPrefix, 0xAB, 0xCD]))
            await #expect(throws: TunnelClientError.httpStatus(503)) {
                try await RelayTest.client.withConnection(
                    to: RelayTest.connectURL(balancer, stray, RelayTest.randomTunnelID())
                ) { _ async throws in }
            }
            let deadConnectTime = clock.now - deadConnectStarted

            // Tunnels on the survivors carry on; the victim's are gone.
            for tunnel in held { tunnel.release() }
            for tunnel in held {
                let outcome = await tunnel.outcome
                if survivors.contains(tunnel.prefix) {
                    #expect(outcome == nil, "tunnel on \(tunnel.prefix) broke: \(outcome ?? "")")
                } else {
                    #expect(outcome != nil, "a tunnel on the killed instance survived")
                }
            }

            // The load carries on on the survivors.
            let countAtDown = load.finished.count
            try await load.waitUntil { $0.count >= countAtDown + 30 }

            let restartAt = clock.now
            try await victim.start()
            try await haproxy.waitFor(victim.serverName, state: .up)
            let upAt = clock.now
            try await load.waitUntil { records in
                records.contains { $0.prefix == victim.routingPrefix && $0.startedAt > upAt && $0.succeeded }
            }
            let rejoinedAt = clock.now
            let records = await load.stop()

            let afterDown = records.filter { $0.startedAt > downAt }
            let failedAfterDown = afterDown.filter { !$0.succeeded }
            #expect(
                failedAfterDown.isEmpty,
                "ceremonies failed after HAProxy marked the instance down: \(failedAfterDown.prefix(3))")
            let strayed = afterDown.filter { $0.prefix == victim.routingPrefix && $0.startedAt < restartAt }
            #expect(strayed.isEmpty, "new tunnels landed on the dead instance")
            let window = records.filter { $0.startedAt >= killedAt && $0.startedAt <= downAt }
            print(
                """
                fleet-fault: ceremonies=\(records.count) failed=\(records.filter { !$0.succeeded }.count) \
                failed_started_before_down=\(window.filter { !$0.succeeded }.count) \
                failed_after_down=\(failedAfterDown.count) \
                detect_ms=\(Self.milliseconds(downAt - killedAt)) dead_connect_ms=\(Self.milliseconds(deadConnectTime)) \
                restart_to_up_ms=\(Self.milliseconds(upAt - restartAt)) restart_to_first_tunnel_ms=\(Self.milliseconds(rejoinedAt - restartAt)) \
                load=\(Self.loadAverage)
                """
            )
        }
    }

    /// A rolling restart under load: SIGTERM each instance in turn, wait for it to exit, start
    /// it again, wait until HAProxy has it up. No tunnel paired before its instance began
    /// draining is lost, including tunnels held open across the drain.
    @Test func rollingRestartLosesNoPairedTunnel() async throws {
        try await Self.withFleet { instances, haproxy, balancer in
            let clock = ContinuousClock()
            let load = CeremonyLoad(balancer: balancer, workers: Self.workers)
            try await load.waitUntil { $0.filter(\.succeeded).count >= 20 }
            var drainStarted: [UInt8: ContinuousClock.Instant] = [:]
            var heldOutcomes: [String?] = []
            var restartTimes: [Duration] = []
            for instance in instances {
                let held = try await HeldTunnel.open(
                    balancer: balancer, perPrefix: 2, prefixes: [instance.routingPrefix])
                let started = clock.now
                drainStarted[instance.routingPrefix] = started
                instance.terminate()
                try await haproxy.waitFor(instance.serverName, state: .down)
                // Draining: the held tunnels, paired before SIGTERM, still carry frames.
                for tunnel in held { tunnel.release() }
                for tunnel in held { heldOutcomes.append(await tunnel.outcome) }
                #expect(await instance.exitStatus() == 0)
                try await instance.start()
                try await haproxy.waitFor(instance.serverName, state: .up)
                restartTimes.append(clock.now - started)
                let upAt = clock.now
                try await load.waitUntil { records in
                    records.contains { $0.prefix == instance.routingPrefix && $0.startedAt > upAt && $0.succeeded }
                }
            }
            let records = await load.stop()
            #expect(heldOutcomes.allSatisfy { $0 == nil }, "held tunnels broke: \(heldOutcomes.compactMap { $0 })")
            let pairedBeforeDrain = records.filter { record in
                guard let prefix = record.prefix, let paired = record.pairedAt, let drain = drainStarted[prefix] else {
                    return false
                }
                return paired < drain
            }
            let lost = pairedBeforeDrain.filter { !$0.succeeded }
            #expect(lost.isEmpty, "tunnels paired before draining were lost: \(lost.prefix(3))")
            print(
                """
                fleet-rolling: ceremonies=\(records.count) failed=\(records.filter { !$0.succeeded }.count) \
                paired_before_drain=\(pairedBeforeDrain.count) lost=\(lost.count) held=\(heldOutcomes.count) \
                restart_ms=\(restartTimes.map { Self.milliseconds($0) }) load=\(Self.loadAverage)
                """
            )
        }
    }
}
