import HybridClient
import HybridCore
import HybridSecurityKey
import Testing

/// The linger after a forwarded request (protocol.md §7.5) as the bridge drives it: the host's
/// answer never waits for it, a late update is counted, the phone's close ends it at once, and the
/// next phone ceremony ends it. The manual clock never moves: only the phone, the host or the test
/// ends a linger, and every wait is for an event.
@Suite(.timeLimit(.minutes(5))) struct SecurityKeyLingerTests {
    static let reply = SecurityKeyBridgeTests.phoneReply

    /// A bridge whose phone answers `request` with ``reply`` and then lingers on a tunnel the test
    /// drives (`then` are later ceremonies); returns once the host has the answer.
    static func answered(
        _ request: [UInt8] = SecurityKeyBridgeTests.getAssertion(), then later: [ScriptedPhone.Step] = []
    ) async throws -> (
        tunnel: LingeringTunnel, harness: BridgeHarness, channel: UInt32, events: AsyncStream<SecurityKeyEvent>.Iterator
    ) {
        let tunnel = LingeringTunnel()
        let harness = BridgeHarness([.replyThenLinger(Self.reply, tunnel)] + later)
        let events = harness.events.makeAsyncIterator()
        let channel = try await harness.allocate()
        await harness.send(.cbor, request, on: channel)
        #expect(
            try await harness.nextMessage() == CTAPHIDMessage(channel: channel, command: .cbor, payload: Self.reply))
        return (tunnel, harness, channel, events)
    }

    /// Events up to and including the `count`-th ``SecurityKeyEvent/tunnelClosed(_:)``.
    static func events(
        untilTunnelsClosed count: Int, from iterator: inout AsyncStream<SecurityKeyEvent>.Iterator
    ) async -> [SecurityKeyEvent] {
        var collected: [SecurityKeyEvent] = []
        var closed = 0
        while closed < count, let event = await iterator.next() {
            collected.append(event)
            if case .tunnelClosed = event { closed += 1 }
        }
        return collected
    }

    /// Chromium's `LateLinkingDevice` shape: the phone sends its late update only after the host
    /// has its answer (the linger is still open then, so it cannot have held the answer back),
    /// then closes; the close ends the linger and the update was received.
    @Test func hostHasItsAnswerBeforeTheLateUpdateWhichIsReceived() async throws {
        let (tunnel, _, _, firstEvents) = try await Self.answered(SecurityKeyBridgeTests.makeCredential())
        var events = firstEvents
        tunnel.sendLateUpdate()
        tunnel.close()
        let seen = await Self.events(untilTunnelsClosed: 1, from: &events)
        #expect(seen.last == .tunnelClosed(HybridSessionEnd(reason: .phoneClosed, lateUpdates: 1)))
        #expect(seen.contains(.ceremony(.lingering(limit: HybridClientOptions.defaultLinger))))
        let done = seen.firstIndex(of: .done(command: .makeCredential, status: .ok))
        #expect(done.map { $0 < seen.count - 1 } == true, "\(seen)")
    }

    /// A phone that closes after the shutdown without an update: the linger ends on the close
    /// alone (the clock never moves).
    @Test func phoneCloseEndsTheLingerAtOnce() async throws {
        let (tunnel, _, _, firstEvents) = try await Self.answered()
        var events = firstEvents
        tunnel.close()
        let seen = await Self.events(untilTunnelsClosed: 1, from: &events)
        #expect(seen.last == .tunnelClosed(HybridSessionEnd(reason: .phoneClosed, lateUpdates: 0)))
    }

    /// A program that closes the device after its answer (libfido2 does, per operation) leaves the
    /// linger alone: the late update still arrives.
    @Test func closingTheDeviceAfterTheAnswerKeepsTheLinger() async throws {
        let (tunnel, harness, _, firstEvents) = try await Self.answered()
        var events = firstEvents
        await harness.bridge.deviceClosed()
        tunnel.sendLateUpdate()
        tunnel.close()
        let seen = await Self.events(untilTunnelsClosed: 1, from: &events)
        #expect(seen.last == .tunnelClosed(HybridSessionEnd(reason: .phoneClosed, lateUpdates: 1)))
    }

    /// A new request that needs the phone while a tunnel lingers (the phone never closes it): the
    /// new ceremony runs and answers at once, and the old linger ends as cancelled.
    @Test func newCeremonyEndsTheLingerAndIsNotBlocked() async throws {
        let second: [UInt8] = [0x00, 0xA0]
        let (tunnel, harness, channel, firstEvents) = try await Self.answered(then: [.reply(second)])
        var events = firstEvents
        var started = tunnel.started.makeAsyncIterator()
        #expect(await started.next() != nil)  // the first tunnel lingers
        await harness.send(.cbor, SecurityKeyBridgeTests.getAssertion(clientDataHash: 0x12), on: channel)
        #expect(try await harness.nextMessage().payload == second)
        let ends = await Self.events(untilTunnelsClosed: 2, from: &events).compactMap { event -> HybridSessionEnd? in
            guard case .tunnelClosed(let end) = event else { return nil }
            return end
        }
        #expect(ends.count == 2)
        #expect(ends.contains(HybridSessionEnd(reason: .cancelled)))
        #expect(ends.contains(HybridSessionEnd(reason: .phoneClosed)))
        #expect(harness.phone.requests.count == 2)
    }

    /// Shutting the bridge down (on exit) ends a linger.
    @Test func shutdownEndsTheLinger() async throws {
        let (_, harness, _, firstEvents) = try await Self.answered()
        var events = firstEvents
        await harness.bridge.shutdown()
        let seen = await Self.events(untilTunnelsClosed: 1, from: &events)
        #expect(seen.last == .tunnelClosed(HybridSessionEnd(reason: .cancelled)))
    }
}
