import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HAProxySupport
import HybridCore
import HybridTransport
import NIOConcurrencyHelpers

/// `relay-bench --fault-run`: three relay instances behind HAProxy (deploy/haproxy.cfg) under a
/// steady load of ceremonies through the balancer; one instance is SIGKILLed, later started
/// again on the same port. Prints what the clients saw: failed ceremonies, how long until new
/// ceremonies stopped failing, how fast a routing ID of the dead instance is refused, and how long
/// the restarted instance took to get tunnels again; and what the balancer saw: how long after the
/// kill its health checks marked the instance DOWN, and after the restart UP (its runtime API,
/// polled every `detectionPoll`).
extension RelayBenchCommand {
    /// How often the fault run asks HAProxy for the victim's state: the resolution of detect_ms and up_ms.
    static let detectionPoll = Duration.milliseconds(10)

    func runFaultRun() async throws {
        var relays: [RelayProcess] = []
        defer { for relay in relays { relay.stop() } }
        for prefix in 1...3 { relays.append(try RelayProcess(binary: relayBinary, arguments: relayArguments(prefix: prefix, behindHAProxy: true))) }
        let ports = relays.map(\.port)
        let balancer = try await ProxyProcess.fleetBalancer(config: haproxyConfig, instancePorts: ports)
        defer { balancer.stop() }
        guard let runtimeAPI = balancer.runtimeAPI else { throw BenchError.relayDidNotStart("fleet balancer without a runtime API") }
        let origin = TunnelServerOrigin(scheme: .ws, host: "127.0.0.1", port: balancer.port)
        let victim = 1
        let victimPrefix = UInt8(victim + 1)
        // deploy/haproxy.cfg's names: backend relays_any has servers relay01, relay02, relay03.
        let servers = (1...3).map { "relay0\($0)" }
        let victimServer = servers[victim]
        print(
            "fault run: 3 tunnel-relay instances (ports \(ports)) behind HAProxy on \(balancer.port) (\(haproxyConfig)); "
                + "\(faultWorkers) ceremony loops; SIGKILL instance 02 after \(faultSteady) s, restart it \(faultDown) s later; "
                + "load average \(Self.loadAverage)"
        )

        let clock = ContinuousClock()
        let load = CeremonyLoop(origin: origin, workers: faultWorkers)
        load.start()
        defer { load.stop() }
        // Every instance has completed a ceremony: HAProxy has them all up.
        try await load.wait(timeout: 60) { records in Set(records.filter(\.succeeded).compactMap(\.prefix)).count == 3 }
        for server in servers { try await runtimeAPI.waitFor(server, in: "relays_any", state: .up) }
        try await Task.sleep(for: .seconds(faultSteady))

        let killedAt = clock.now
        kill(relays[victim].process.processIdentifier, SIGKILL)
        async let markedDown = runtimeAPI.waitFor(victimServer, in: "relays_any", state: .down, interval: Self.detectionPoll)
        relays[victim].process.waitUntilExit()

        // A routing ID of the dead instance: the answer (HAProxy's 503) and how long it took.
        let probeStart = clock.now
        let deadConnect: String
        do {
            guard let stray = RoutingID(bytes: [victimPrefix, 0xAB, 0xCD]) else { throw BenchError.ceremonyBroke("routing ID") }
            try await TunnelClient(configuration: .init(), logger: Self.logger)
                .withConnection(to: TunnelURL(origin: origin, path: .connect(stray, Bench.randomTunnelID()))) { _ in }
            deadConnect = "upgraded"
        } catch let error as TunnelClientError {
            deadConnect = if case .httpStatus(let status) = error { String(status) } else { "\(error)" }
        }
        let deadConnectTime = clock.now - probeStart

        let downAt = try await markedDown

        try await clock.sleep(until: killedAt + .seconds(faultDown))
        let restartAt = clock.now
        async let markedUp = runtimeAPI.waitFor(victimServer, in: "relays_any", state: .up, interval: Self.detectionPoll)
        relays[victim] = try RelayProcess(binary: relayBinary, arguments: relayArguments(prefix: Int(victimPrefix), port: ports[victim], behindHAProxy: true))
        try await load.wait(timeout: 60) { records in
            records.contains { $0.prefix == victimPrefix && $0.startedAt > restartAt && $0.succeeded }
        }
        let rejoinedAt = clock.now
        let upAt = try await markedUp
        try await Task.sleep(for: .seconds(faultSteady))
        let records = load.stop()

        let failed = records.filter { !$0.succeeded }
        let inFlightAtKill = failed.filter { $0.startedAt < killedAt }
        let startedAfterKill = failed.filter { $0.startedAt >= killedAt }
        // Recovered: from the kill to the start of the first ceremony after which none failed.
        let lastFailedStart = startedAfterKill.map(\.startedAt).max()
        let recovered = lastFailedStart.flatMap { last in records.filter { $0.startedAt > last }.map(\.startedAt).min() }
        let recoverTime = lastFailedStart == nil ? Duration.zero : (recovered ?? clock.now) - killedAt
        let strayed = records.filter { $0.prefix == victimPrefix && $0.startedAt > killedAt && $0.startedAt < restartAt && $0.succeeded }
        for record in failed.prefix(5) { print("  failed: \(record.error ?? "?")") }
        print(
            "ceremonies: \(records.count), failed \(failed.count) (\(inFlightAtKill.count) in flight at the kill, "
                + "\(startedAfterKill.count) started after it); new ceremonies succeed again \(Self.ms(recoverTime)) ms after the kill; "
                + "/cable/connect for the dead instance: \(deadConnect) in \(Self.ms(deadConnectTime)) ms; "
                + "HAProxy marked it DOWN \(Self.ms(downAt - killedAt)) ms after the kill and UP \(Self.ms(upAt - restartAt)) ms "
                + "after the restart (runtime API polled every \(Self.ms(Self.detectionPoll)) ms); "
                + "restarted instance got its first tunnel \(Self.ms(rejoinedAt - restartAt)) ms after its restart; "
                + "\(strayed.count) ceremonies succeeded on the dead instance's prefix while it was down"
        )
        var line = SummaryLine(phase: "fault_run")
        line["ceremonies"] = String(records.count)
        line["failed"] = String(failed.count)
        line["failed_in_flight"] = String(inFlightAtKill.count)
        line["failed_after_kill"] = String(startedAfterKill.count)
        line["recover_ms"] = String(Self.ms(recoverTime))
        line["dead_connect"] = deadConnect
        line["dead_connect_ms"] = String(Self.ms(deadConnectTime))
        line["detect_ms"] = String(Self.ms(downAt - killedAt))
        line["up_ms"] = String(Self.ms(upAt - restartAt))
        line["restart_to_first_tunnel_ms"] = String(Self.ms(rejoinedAt - restartAt))
        line.print()
    }

    static func ms(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}

/// Ceremonies back to back on `workers` concurrent loops, through one origin: `/cable/new`, then
/// `/cable/connect` with the routing ID it got, three 64-byte messages each way, close.
final class CeremonyLoop: Sendable {
    struct Record: Sendable {
        let startedAt: ContinuousClock.Instant
        /// The routing ID's instance prefix, once `/cable/new` answered.
        var prefix: UInt8?
        var succeeded = false
        var error: String?
    }

    private let origin: TunnelServerOrigin
    private let workers: Int
    private let records = NIOLockedValueBox<[Record]>([])
    private let running = NIOLockedValueBox(true)
    private let tasks = NIOLockedValueBox<[Task<Void, Never>]>([])

    init(origin: TunnelServerOrigin, workers: Int) {
        self.origin = origin
        self.workers = workers
    }

    func start() {
        let started = (0..<workers).map { _ in
            Task {
                while self.running.withLockedValue({ $0 }) {
                    let record = await self.ceremony()
                    self.records.withLockedValue { $0.append(record) }
                }
            }
        }
        tasks.withLockedValue { $0 = started }
    }

    /// Stops starting ceremonies; returns every record so far (the ones in flight finish alone).
    @discardableResult
    func stop() -> [Record] {
        running.withLockedValue { $0 = false }
        return records.withLockedValue { $0 }
    }

    /// Polls the records until `condition` holds, for at most `timeout` seconds.
    func wait(timeout: Double, until condition: ([Record]) -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while !condition(records.withLockedValue { $0 }) {
            guard ContinuousClock.now < deadline else { throw BenchError.relayDidNotStart("fault run: condition not met in \(timeout) s") }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    private func ceremony() async -> Record {
        var record = Record(startedAt: .now)
        var configuration = TunnelClient.Configuration()
        configuration.connectTimeout = .seconds(5)
        configuration.handshakeTimeout = .seconds(5)
        let client = TunnelClient(configuration: configuration, logger: RelayBenchCommand.logger)
        let tunnelID = Bench.randomTunnelID()
        do {
            try await client.withConnection(to: TunnelURL(origin: origin, path: .new(tunnelID))) { phone in
                let routingID = try phone.routingID()
                record.prefix = routingID.bytes[0]
                try await client.withConnection(to: TunnelURL(origin: origin, path: .connect(routingID, tunnelID))) { desktop in
                    var atPhone = phone.messages.makeAsyncIterator()
                    var atDesktop = desktop.messages.makeAsyncIterator()
                    for round in 0..<3 {
                        let message = [UInt8](repeating: UInt8(round), count: 64)
                        try await desktop.send(message)
                        guard try await atPhone.next() == message else { throw BenchError.ceremonyBroke("phone got a wrong message") }
                        try await phone.send(message)
                        guard try await atDesktop.next() == message else { throw BenchError.ceremonyBroke("desktop got a wrong message") }
                    }
                }
            }
            record.succeeded = true
        } catch {
            record.error = "\(error)"
        }
        return record
    }
}
