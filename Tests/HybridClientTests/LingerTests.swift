import HybridAuthenticator
import HybridBluetooth
import HybridCore
import TestFakePhone
import TestLoopbackRelay
import TestManualClock
import TestSupport
import Testing

@testable import HybridClient

/// The linger after the client's shutdown (protocol.md §7.5): the response reaches the caller at
/// once, a late update is handled like an early one, and the tunnel ends when the phone closes it
/// or the linger runs out. Timers run on a ``ManualClock``: nothing here waits on the wall clock.
@Suite(.timeLimit(.minutes(5))) struct LingerTests {
    /// What a lingering run gave: the response its caller got, how the tunnel ended, the events,
    /// and what the phone did.
    struct Outcome: Sendable {
        var response: HybridClientResponse?
        var end: Result<HybridSessionEnd, any Error>
        var events: [HybridClientEvent]
        var phone: Result<FakePhone.Record, any Error>
    }

    /// Runs a registration with ``HybridClientRunner/run(_:events:onResponse:)`` against a
    /// ``FakePhone`` with `phone`'s behaviour; `onResponse` runs when the caller gets the
    /// response. The client's task is cancelled at the first event `cancelAt` accepts, if any.
    static func run(
        phone behaviour: FakePhone.Behaviour = .normal,
        clock: ManualClock = ManualClock(),
        cancelAt: (@Sendable (HybridClientEvent) -> Bool)? = nil,
        onEvent: @escaping @Sendable (HybridClientEvent) -> Void = { _ in },
        onResponse: @escaping @Sendable () -> Void = {}
    ) async throws -> Outcome {
        let air = try LoopbackCeremony.freshAir()
        return try await LoopbackRelay.with { relay in
            var options = LoopbackCeremonyTests.options(relay: relay, air: air)
            options.clock = clock
            let runner = HybridClientRunner(options: options)
            let authenticator = FakePhone(relay: relay, air: air, behaviour: behaviour)
            let (qrURLs, qrSink) = AsyncStream<String>.makeStream()
            let (events, eventSink) = AsyncStream<HybridClientEvent>.makeStream()
            let (responses, responseSink) = AsyncStream<HybridClientResponse>.makeStream()
            let (cancelPoint, cancelSink) = AsyncStream<Void>.makeStream()
            async let phoneResult = capture {
                var iterator = qrURLs.makeAsyncIterator()
                guard let url = await iterator.next() else { throw TestFailure("no QR code shown") }
                return try await authenticator.serve(qrURL: url)
            }
            let end = await withTaskGroup(of: Result<HybridSessionEnd, any Error>.self) { group in
                group.addTask {
                    await capture {
                        try await runner.run(try LoopbackCeremonyTests.registration()) { event in
                            eventSink.yield(event)
                            onEvent(event)
                            if case .qr(let url) = event { qrSink.yield(url) }
                            if cancelAt?(event) == true { cancelSink.yield() }
                        } onResponse: { response in
                            responseSink.yield(response)
                            onResponse()
                        }
                    }
                }
                if cancelAt != nil {
                    for await _ in cancelPoint { break }
                    group.cancelAll()
                }
                return await group.next() ?? .failure(TestFailure("the client task vanished"))
            }
            cancelSink.finish()
            qrSink.finish()
            eventSink.finish()
            responseSink.finish()
            var collected: [HybridClientEvent] = []
            for await event in events { collected.append(event) }
            var delivered: HybridClientResponse?
            for await response in responses { delivered = response }
            return Outcome(response: delivered, end: end, events: collected, phone: await phoneResult)
        }
    }

    /// Chromium's `LateLinkingDevice`: the phone answers, gets the shutdown, and sends a linking
    /// update only once the client's caller holds the response (so the linger cannot have held it
    /// back), then closes. The update goes through the session (signature verified) and is
    /// counted; the phone's close ends the linger.
    @Test func lateLinkingUpdateAfterTheCallerHasTheResponse() async throws {
        let (responded, responseSignal) = AsyncStream<Void>.makeStream()
        let outcome = try await Self.run(
            phone: .lateLinkingUpdate(gate: {
                for await _ in responded { break }
            }),
            onResponse: {
                responseSignal.yield()
                responseSignal.finish()
            })
        guard case .registration = outcome.response else {
            Issue.record("no registration delivered: \(outcome)")
            return
        }
        #expect(try outcome.end.get() == HybridSessionEnd(reason: .phoneClosed, lateUpdates: 1))
        #expect(outcome.events.suffix(2) == [.done, .lingering(limit: HybridClientOptions.defaultLinger)])
        let phone = try outcome.phone.get()
        #expect(phone.shutdownReceived && phone.ctapResponse?.first == 0x00)
    }

    /// A phone that closes after the shutdown (as Chromium's does) ends the linger at once: the
    /// manual clock never moves, so only the close can end it.
    @Test func phoneClosingAfterTheShutdownEndsTheLingerAtOnce() async throws {
        let outcome = try await Self.run(phone: .normal)
        #expect(outcome.response != nil)
        #expect(try outcome.end.get() == HybridSessionEnd(reason: .phoneClosed, lateUpdates: 0))
        #expect(try outcome.phone.get().shutdownReceived)
    }

    /// A phone that stays silent after the shutdown: the client closes the tunnel once the linger
    /// has passed on its clock (advanced when the timer sleeps beside the ceremony timeout).
    @Test func lingerEndsWhenItsTimeRunsOut() async throws {
        let clock = ManualClock()
        let outcome = try await Self.run(
            phone: .staysOpenAfterShutdown, clock: clock,
            onEvent: { event in
                guard case .lingering(let limit) = event else { return }
                Task {
                    await clock.sleeperArrived(count: 2)
                    clock.advance(by: limit)
                }
            })
        #expect(outcome.response != nil)
        #expect(try outcome.end.get() == HybridSessionEnd(reason: .lingerExpired, lateUpdates: 0))
        // The phone's read ended because the client closed.
        #expect(try outcome.phone.get().shutdownReceived)
    }

    /// Cancelling the caller while the phone keeps the tunnel open ends the linger (the manual
    /// clock never moves) and closes the tunnel, which ends the phone's session too.
    @Test func cancellingTheCallerEndsTheLinger() async throws {
        let outcome = try await Self.run(
            phone: .staysOpenAfterShutdown,
            cancelAt: { event in
                guard case .lingering = event else { return false }
                return true
            })
        #expect(outcome.response != nil)
        #expect(try outcome.end.get() == HybridSessionEnd(reason: .cancelled, lateUpdates: 0))
        // The phone's read ended with the tunnel (whether the shutdown got out before the abrupt
        // close is a race: the cancelled task cannot wait for the close handshake).
        #expect(throws: Never.self) { try outcome.phone.get() }
    }

    /// Cancelled before the response, the call still throws `CancellationError` (the ceremony
    /// timeout's task does not swallow it) and never delivers.
    @Test func cancellingBeforeTheResponseThrowsCancellationError() async throws {
        let outcome = try await Self.run(phone: .neverAnswers, cancelAt: { $0 == .waitingForApproval })
        #expect(outcome.response == nil)
        #expect(throws: CancellationError.self) { try outcome.end.get() }
    }

    /// Garbage during the linger: a typed session error ends it; the response already delivered
    /// stands.
    @Test func garbageDuringTheLingerEndsItWithATypedError() async throws {
        let outcome = try await Self.run(phone: .garbageAfterShutdown)
        #expect(outcome.response != nil)
        let end = try outcome.end.get()
        #expect(end.reason == .failed(.session(.transport(.authenticationFailed))), "\(end)")
        #expect(end.lateUpdates == 0)
    }
}
