import Foundation
import HybridCore
import HybridTransport
import NIOConcurrencyHelpers
import TestLoopbackRelay
import Testing

/// What happened to one tunnel set up through the balancer: which instance (routing prefix)
/// held it, when it was paired, and whether every frame came through both ways.
struct CeremonyRecord: Sendable {
    var startedAt: ContinuousClock.Instant
    var prefix: UInt8?
    var pairedAt: ContinuousClock.Instant?
    var failure: String?
    var succeeded: Bool { failure == nil }
}

/// A "ceremony" as far as the relay can tell: a phone opens /cable/new, a desktop joins with
/// /cable/connect, both send frames, the other side must receive exactly them.
enum Ceremony {
    static let frameSize = 64

    /// Runs one ceremony against `balancer`, exchanging `roundTrips` frames each way.
    static func run(balancer: TunnelServerOrigin, roundTrips: Int = 3) async -> CeremonyRecord {
        var record = CeremonyRecord(startedAt: .now)
        do {
            let tunnelID = RelayTest.randomTunnelID()
            try await RelayTest.client.withConnection(to: RelayTest.newURL(balancer, tunnelID)) { phone async throws in
                let routingID = try phone.routingID()
                record.prefix = routingID.bytes[0]
                try await RelayTest.client.withConnection(
                    to: RelayTest.connectURL(balancer, routingID, tunnelID)
                ) { desktop async throws in
                    record.pairedAt = .now
                    try await exchange(phone: phone, desktop: desktop, roundTrips: roundTrips)
                    await desktop.close()
                }
            }
        } catch {
            record.failure = "\(error)"
        }
        return record
    }

    /// Sends numbered frames desktop → phone and phone → desktop and checks each arrives intact.
    static func exchange(phone: TunnelConnection, desktop: TunnelConnection, roundTrips: Int) async throws {
        var atPhone = phone.messages.makeAsyncIterator()
        var atDesktop = desktop.messages.makeAsyncIterator()
        try await exchange(phone: phone, &atPhone, desktop: desktop, &atDesktop, roundTrips: roundTrips)
    }

    /// ``exchange(phone:desktop:roundTrips:)`` with the iterators already in use.
    static func exchange(
        phone: TunnelConnection, _ atPhone: inout TunnelMessages.AsyncIterator,
        desktop: TunnelConnection, _ atDesktop: inout TunnelMessages.AsyncIterator,
        roundTrips: Int
    ) async throws {
        for round in 0..<roundTrips {
            let up = [UInt8](repeating: UInt8(truncatingIfNeeded: round), count: frameSize)
            try await desktop.send(up)
            guard try await atPhone.next() == up else { throw CeremonyFailure.frameLost }
            let down = [UInt8](repeating: UInt8(truncatingIfNeeded: round &+ 128), count: frameSize)
            try await phone.send(down)
            guard try await atDesktop.next() == down else { throw CeremonyFailure.frameLost }
        }
    }
}

enum CeremonyFailure: Error { case frameLost }

/// `workers` ceremonies at a time against the balancer, back to back, until ``stop()``.
final class CeremonyLoad: Sendable {
    typealias Condition = @Sendable ([CeremonyRecord]) -> Bool

    private struct State {
        var records: [CeremonyRecord] = []
        /// Callers of ``waitUntil(_:)`` whose condition did not hold yet.
        var waiters: [(id: UUID, condition: Condition, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = NIOLockedValueBox(State())
    private let running = NIOLockedValueBox(true)
    private let task: Task<Void, Never>

    init(balancer: TunnelServerOrigin, workers: Int) {
        let state = self.state
        let running = self.running
        task = Task {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<workers {
                    group.addTask {
                        while running.withLockedValue({ $0 }) {
                            let record = await Ceremony.run(balancer: balancer)
                            let satisfied = state.withLockedValue { state in
                                state.records.append(record)
                                let records = state.records
                                let (met, waiting) = state.waiters.partitioned { $0.condition(records) }
                                state.waiters = waiting
                                return met
                            }
                            for waiter in satisfied { waiter.continuation.resume() }
                        }
                    }
                }
            }
        }
    }

    /// A snapshot of the finished ceremonies.
    var finished: [CeremonyRecord] { state.withLockedValue { $0.records } }

    /// Returns once `condition` holds for the finished ceremonies: checked now, then as each
    /// ceremony finishes. Throws `CancellationError` if the task is cancelled first (the suite's
    /// time limit bounds a hang).
    func waitUntil(_ condition: @escaping Condition) async throws {
        let id = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let met = state.withLockedValue { state in
                    if condition(state.records) || Task.isCancelled { return true }
                    state.waiters.append((id, condition, continuation))
                    return false
                }
                if met { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume()
        }
        try Task.checkCancellation()
    }

    /// Stops starting ceremonies, lets the running ones finish, returns them all.
    func stop() async -> [CeremonyRecord] {
        running.withLockedValue { $0 = false }
        await task.value
        return finished
    }
}

/// A tunnel paired through the balancer that stays open (one round trip done) until
/// ``release()``; then it exchanges frames once more and closes. ``outcome`` says whether that
/// last exchange came through: a tunnel "carrying on untouched" across a fault or a drain.
final class HeldTunnel: Sendable {
    let prefix: UInt8
    let pairedAt: ContinuousClock.Instant
    private let releaser: AsyncStream<Void>.Continuation
    private let task: Task<String?, Never>

    private init(
        prefix: UInt8, pairedAt: ContinuousClock.Instant, releaser: AsyncStream<Void>.Continuation,
        task: Task<String?, Never>
    ) {
        self.prefix = prefix
        self.pairedAt = pairedAt
        self.releaser = releaser
        self.task = task
    }

    func release() { releaser.finish() }

    /// nil when the frames after release came through, else what went wrong.
    var outcome: String? { get async { await task.value } }

    /// Pairs a tunnel through `balancer` and holds it.
    static func open(balancer: TunnelServerOrigin) async throws -> HeldTunnel {
        let (released, releaser) = AsyncStream<Void>.makeStream()
        let (paired, pairing) = AsyncThrowingStream<(UInt8, ContinuousClock.Instant), any Error>.makeStream()
        let task = Task<String?, Never> {
            var wasPaired = false
            do {
                let tunnelID = RelayTest.randomTunnelID()
                try await RelayTest.client.withConnection(to: RelayTest.newURL(balancer, tunnelID)) {
                    phone async throws in
                    let routingID = try phone.routingID()
                    try await RelayTest.client.withConnection(
                        to: RelayTest.connectURL(balancer, routingID, tunnelID)
                    ) { desktop async throws in
                        var atPhone = phone.messages.makeAsyncIterator()
                        var atDesktop = desktop.messages.makeAsyncIterator()
                        try await Ceremony.exchange(phone: phone, &atPhone, desktop: desktop, &atDesktop, roundTrips: 1)
                        wasPaired = true
                        pairing.yield((routingID.bytes[0], .now))
                        pairing.finish()
                        for await _ in released {}
                        try await Ceremony.exchange(phone: phone, &atPhone, desktop: desktop, &atDesktop, roundTrips: 2)
                        await desktop.close()
                    }
                }
                return nil
            } catch {
                if !wasPaired { pairing.finish(throwing: error) }
                return "\(error)"
            }
        }
        var iterator = paired.makeAsyncIterator()
        guard let paired = try await iterator.next() else { throw CeremonyFailure.frameLost }
        return HeldTunnel(prefix: paired.0, pairedAt: paired.1, releaser: releaser, task: task)
    }

    /// Opens held tunnels until every prefix in `prefixes` has at least `perPrefix` of them.
    static func open(balancer: TunnelServerOrigin, perPrefix: Int, prefixes: Set<UInt8>) async throws -> [HeldTunnel] {
        var held: [HeldTunnel] = []
        func count(_ prefix: UInt8) -> Int { held.filter { $0.prefix == prefix }.count }
        while prefixes.contains(where: { count($0) < perPrefix }) {
            held.append(try await open(balancer: balancer))
        }
        return held
    }
}

extension Array {
    /// The elements that satisfy `predicate`, and the rest, each in their original order.
    fileprivate func partitioned(by predicate: (Element) -> Bool) -> (matching: [Element], rest: [Element]) {
        var matching: [Element] = []
        var rest: [Element] = []
        for element in self {
            if predicate(element) { matching.append(element) } else { rest.append(element) }
        }
        return (matching, rest)
    }
}
