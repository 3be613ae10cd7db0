import HybridCTAP
import HybridClient
import HybridCore
import HybridSecurityKey
import TestManualClock
import TestSupport
import Testing

/// The key's one core, with no actor and no task: the request in flight and every deadline
/// (KEEPALIVE, the selection hold), the linger and the phone's reachability, on plain durations.
/// Expected bytes come from CTAP 2.2: CTAPHID_KEEPALIVE 0x3B with STATUS_PROCESSING 1 or
/// STATUS_UPNEEDED 2 (§11.2.9.2.1), ERR_CHANNEL_BUSY 0x06 (§11.2.9.1.6), CTAP2_ERR_USER_ACTION_TIMEOUT
/// 0x2F, CTAP2_ERR_KEEPALIVE_CANCEL 0x2D, CTAP1_ERR_OTHER 0x7F, CTAP2_ERR_NOT_ALLOWED 0x30 (§8.2).
@Suite struct SecurityKeyStateMachineTests {
    typealias Machine = SecurityKeyStateMachine
    typealias Reports = CTAPHIDStateMachineTests

    /// A core with one channel allocated.
    static func machine() throws -> (Machine, UInt32) {
        var machine = Machine()
        let channel = try allocate(&machine)
        return (machine, channel)
    }

    static func allocate(_ machine: inout Machine) throws -> UInt32 {
        let actions = machine.reportReceived(Reports.initReport(0xFFFF_FFFF, 0x06, length: 8, Reports.nonce), at: .zero)
        guard case .send(let message) = try #require(actions.first) else {
            throw TestFailure("no INIT response")
        }
        let p = message.payload
        return UInt32(p[8]) << 24 | UInt32(p[9]) << 16 | UInt32(p[10]) << 8 | UInt32(p[11])
    }

    /// The reports of one CTAPHID message carrying `payload` (command 0x10, CTAPHID_CBOR).
    static func request(_ payload: [UInt8], on channel: UInt32, into machine: inout Machine, at now: Duration)
        -> [Machine.Action]
    {
        CTAPHIDMessage(channel: channel, command: .cbor, payload: payload).reports.flatMap {
            machine.reportReceived($0, at: now)
        }
    }

    static func keepalive(_ status: UInt8, on channel: UInt32) -> Machine.Action {
        .send(CTAPHIDMessage(channel: channel, command: CTAPHIDCommand(rawValue: 0x3B), payload: [status]))
    }

    static func answer(_ payload: [UInt8], on channel: UInt32) -> Machine.Action {
        .send(CTAPHIDMessage(channel: channel, command: CTAPHIDCommand(rawValue: 0x10), payload: payload))
    }

    static func started(_ actions: [Machine.Action]) -> (id: UInt64, request: PhoneRequest)? {
        for case .startCeremony(let id, let request) in actions { return (id, request) }
        return nil
    }

    static let getAssertion = SecurityKeyBridgeTests.getAssertion()
    /// The core's default linger: Chromium's three minutes after the shutdown (protocol.md §7.5).
    static let linger = Duration.seconds(180)
    static let reply = SecurityKeyBridgeTests.phoneReply

    @Test func oneRequestAtThePhoneHasKeepalivesUntilItsAnswer() throws {
        var (machine, channel) = try Self.machine()
        let actions = Self.request(Self.getAssertion, on: channel, into: &machine, at: .zero)
        let (id, request) = try #require(Self.started(actions))
        #expect(request.type == .getAssertion && request.relyingPartyID == "example.com")
        #expect(actions.first == .event(.forwarding(command: .getAssertion, rpID: "example.com")))
        #expect(machine.requestInFlight?.channel == channel)
        // KEEPALIVE PROCESSING every 100 ms, UPNEEDED once the QR code is up.
        #expect(machine.nextDeadline == .milliseconds(100))
        #expect(machine.tick(at: .milliseconds(99)).isEmpty)
        #expect(machine.tick(at: .milliseconds(100)) == [Self.keepalive(1, on: channel)])
        machine.phoneNeedsUser(id: id)
        #expect(machine.nextDeadline == .milliseconds(200))
        #expect(machine.tick(at: .milliseconds(200)) == [Self.keepalive(2, on: channel)])
        // The answer goes out at once; no KEEPALIVE is left, the ceremony lingers until its end.
        let answered = machine.phoneReplied(id: id, reply: Self.reply, at: .milliseconds(250))
        #expect(answered.last == Self.answer(Self.reply, on: channel))
        #expect(answered.contains(.event(.done(command: .getAssertion, status: .ok))))
        #expect(machine.nextDeadline == .milliseconds(250) + Self.linger && machine.requestInFlight == nil)
        #expect(machine.lingeringCeremony == id)
        #expect(machine.tick(at: .seconds(5)).isEmpty)  // the KEEPALIVEs have stopped
        // A late outcome of the same ceremony changes nothing.
        #expect(machine.phoneReplied(id: id, reply: [0x00], at: .milliseconds(260)).isEmpty)
        #expect(
            machine.phoneFailed(
                id: id, error: HybridClientError.timedOut(stage: .waitingForDevice, after: .seconds(120)),
                at: .milliseconds(260)
            ).isEmpty)
    }

    /// CANCEL on the request's channel answers CTAP2_ERR_KEEPALIVE_CANCEL at once and stops the
    /// ceremony; the phone's late answer is dropped.
    @Test func aCancelAnswersAtOnceAndDropsThePhonesLateAnswer() throws {
        var (machine, channel) = try Self.machine()
        let (id, _) = try #require(
            Self.started(Self.request(Self.getAssertion, on: channel, into: &machine, at: .zero)))
        let cancel = machine.reportReceived(Reports.initReport(channel, 0x11, length: 0, []), at: .milliseconds(30))
        #expect(
            cancel == [.cancelCeremony(id: id), .event(.cancelled(.cancelCommand)), Self.answer([0x2D], on: channel)])
        #expect(machine.requestInFlight == nil && machine.nextDeadline == nil)
        #expect(machine.phoneReplied(id: id, reply: Self.reply, at: .milliseconds(40)).isEmpty)
    }

    /// CANCEL from another channel is ignored (CTAP 2.2 §11.2.9.1.5): the request's KEEPALIVEs and
    /// its answer still go to its own channel.
    @Test func aCancelFromAnotherChannelLeavesTheRequestAlone() throws {
        var (machine, owner) = try Self.machine()
        let other = try Self.allocate(&machine)
        let (id, _) = try #require(
            Self.started(Self.request(Self.getAssertion, on: owner, into: &machine, at: .zero)))
        #expect(machine.reportReceived(Reports.initReport(other, 0x11, length: 0, []), at: .milliseconds(10)).isEmpty)
        #expect(machine.requestInFlight?.channel == owner)
        #expect(machine.tick(at: .milliseconds(100)) == [Self.keepalive(1, on: owner)])
        #expect(
            machine.phoneReplied(id: id, reply: Self.reply, at: .milliseconds(150)).last
                == Self.answer(Self.reply, on: owner))
    }

    /// The host closing the device ends the request in flight and its ceremony; nothing is answered.
    @Test func closingTheDeviceEndsTheRequestInFlight() throws {
        var (machine, channel) = try Self.machine()
        let (id, _) = try #require(
            Self.started(Self.request(Self.getAssertion, on: channel, into: &machine, at: .zero)))
        #expect(
            machine.deviceClosed(at: .milliseconds(10)) == [.cancelCeremony(id: id), .event(.cancelled(.deviceClosed))])
        #expect(machine.requestInFlight == nil && machine.nextDeadline == nil)
        #expect(machine.tick(at: .seconds(1)).isEmpty)
    }

    @Test func aSecondChannelIsBusyWhileARequestIsInFlight() throws {
        var (machine, channel) = try Self.machine()
        _ = Self.request(Self.getAssertion, on: channel, into: &machine, at: .zero)
        let other = try Self.allocate(&machine)
        #expect(
            Self.request([0x04], on: other, into: &machine, at: .milliseconds(10)) == [
                .send(CTAPHIDMessage(channel: other, command: CTAPHIDCommand(rawValue: 0x3F), payload: [0x06]))
            ])
        // getInfo on the first channel after the answer is served at once again.
        let id = try #require(machine.requestInFlight?.id)
        _ = machine.phoneReplied(id: id, reply: Self.reply, at: .milliseconds(20))
        let info = Self.request([0x04], on: other, into: &machine, at: .milliseconds(30))
        #expect(info.last == Self.answer(SecurityKeyInfo.responseBytes, on: other))
    }

    @Test func selectionIsHeldWithUpneededUntilTheHoldEnds() throws {
        var (machine, channel) = try Self.machine()
        #expect(Self.request([0x0B], on: channel, into: &machine, at: .zero).isEmpty)
        #expect(machine.nextDeadline == .milliseconds(100))
        #expect(machine.tick(at: .milliseconds(100)) == [Self.keepalive(2, on: channel)])
        // The hold's own deadline is the next one once no KEEPALIVE comes before it.
        #expect(machine.tick(at: .milliseconds(29_950)) == [Self.keepalive(2, on: channel)])
        #expect(machine.nextDeadline == .seconds(30))  // before the KEEPALIVE due at 30.05 s
        #expect(machine.tick(at: .seconds(30)) == [Self.answer([0x2F], on: channel)])
        #expect(machine.nextDeadline == nil && machine.requestInFlight == nil)
    }

    @Test func cancelEndsAHoldAndItsDeadline() throws {
        var (machine, channel) = try Self.machine()
        _ = Self.request([0x0B], on: channel, into: &machine, at: .zero)
        let cancel = machine.reportReceived(Reports.initReport(channel, 0x11, length: 0, []), at: .seconds(1))
        #expect(cancel == [.event(.cancelled(.cancelCommand)), Self.answer([0x2D], on: channel)])
        #expect(machine.nextDeadline == nil)
        #expect(machine.tick(at: .seconds(31)).isEmpty)
    }

    @Test func theNextCeremonyEndsTheLingerAndTheCloseIsReported() throws {
        var (machine, channel) = try Self.machine()
        let first = try #require(Self.started(Self.request(Self.getAssertion, on: channel, into: &machine, at: .zero)))
        _ = machine.phoneReplied(id: first.id, reply: Self.reply, at: .milliseconds(50))
        let next = Self.request(
            SecurityKeyBridgeTests.getAssertion(clientDataHash: 0x12), on: channel, into: &machine,
            at: .milliseconds(60))
        #expect(next.first == .endLinger(id: first.id))
        let second = try #require(Self.started(next))
        #expect(machine.lingeringCeremony == nil)
        // The first tunnel's close is only reported; the second request is still in flight.
        let end = HybridSessionEnd(reason: .cancelled)
        #expect(
            machine.phoneTunnelClosed(id: first.id, end: end, at: .milliseconds(70)) == [.event(.tunnelClosed(end))])
        #expect(machine.requestInFlight?.id == second.id)
        // Shutting down stops the ceremony in flight and answers nothing.
        #expect(machine.shutdown() == [.cancelCeremony(id: second.id)])
    }

    /// The linger's end is the core's own deadline: three minutes after the answer it asks for
    /// the tunnel's close, and that close reads as the linger's expiry, not as a cancellation.
    @Test func theLingerEndsAtTheCoresDeadline() throws {
        var (machine, channel) = try Self.machine()
        let (id, _) = try #require(
            Self.started(Self.request(Self.getAssertion, on: channel, into: &machine, at: .zero)))
        _ = machine.phoneReplied(id: id, reply: Self.reply, at: .seconds(1))
        #expect(machine.nextDeadline == .seconds(1) + Self.linger)
        #expect(machine.tick(at: .seconds(180)).isEmpty)
        #expect(machine.lingeringCeremony == id)
        #expect(machine.tick(at: .seconds(181)) == [.endLinger(id: id)])
        #expect(machine.lingeringCeremony == nil && machine.nextDeadline == nil)
        let closed = machine.phoneTunnelClosed(
            id: id, end: HybridSessionEnd(reason: .cancelled, lateUpdates: 1), at: .seconds(181))
        #expect(closed == [.event(.tunnelClosed(HybridSessionEnd(reason: .lingerExpired, lateUpdates: 1)))])
        // Nothing is left to end on exit.
        #expect(machine.shutdown().isEmpty)
    }

    /// Two expired lingers whose closes come late, the second's deadline before the first's close
    /// (the shell closes tunnels asynchronously): each close still reads as its linger's expiry.
    @Test func eachExpiredLingerKeepsItsOwnClose() throws {
        var (machine, channel) = try Self.machine()
        let first = try #require(Self.started(Self.request(Self.getAssertion, on: channel, into: &machine, at: .zero)))
        _ = machine.phoneReplied(id: first.id, reply: Self.reply, at: .seconds(1))
        #expect(machine.tick(at: .seconds(181)) == [.endLinger(id: first.id)])
        let second = try #require(
            Self.started(
                Self.request(
                    SecurityKeyBridgeTests.getAssertion(clientDataHash: 0x15), on: channel, into: &machine,
                    at: .seconds(182))))
        _ = machine.phoneReplied(id: second.id, reply: Self.reply, at: .seconds(183))
        #expect(machine.tick(at: .seconds(363)) == [.endLinger(id: second.id)])
        for id in [first.id, second.id] {
            let closed = machine.phoneTunnelClosed(id: id, end: HybridSessionEnd(reason: .cancelled), at: .seconds(364))
            #expect(closed == [.event(.tunnelClosed(HybridSessionEnd(reason: .lingerExpired)))], "ceremony \(id)")
        }
        #expect(machine.nextDeadline == nil && machine.shutdown().isEmpty)
    }

    /// A phone that closes before the deadline ends the linger and its deadline.
    @Test func aPhoneCloseBeforeTheDeadlineEndsTheLinger() throws {
        var (machine, channel) = try Self.machine()
        let (id, _) = try #require(
            Self.started(Self.request(Self.getAssertion, on: channel, into: &machine, at: .zero)))
        _ = machine.phoneReplied(id: id, reply: Self.reply, at: .seconds(1))
        let end = HybridSessionEnd(reason: .phoneClosed)
        #expect(machine.phoneTunnelClosed(id: id, end: end, at: .seconds(2)) == [.event(.tunnelClosed(end))])
        #expect(machine.nextDeadline == nil && machine.lingeringCeremony == nil)
        #expect(machine.tick(at: .seconds(181)).isEmpty)
    }

    @Test func aRepeatIsAnsweredFromTheCacheWithoutTheLinger() throws {
        var (machine, channel) = try Self.machine()
        let first = try #require(Self.started(Self.request(Self.getAssertion, on: channel, into: &machine, at: .zero)))
        _ = machine.phoneReplied(id: first.id, reply: Self.reply, at: .milliseconds(50))
        let repeated = Self.request(Self.getAssertion, on: channel, into: &machine, at: .seconds(1))
        #expect(repeated.last == Self.answer(Self.reply, on: channel))
        #expect(Self.started(repeated) == nil && machine.lingeringCeremony == first.id)
        #expect(machine.shutdown() == [.endLinger(id: first.id)])
    }

    @Test func aFailedPhoneTaskAnswersItsStatus() throws {
        var (machine, channel) = try Self.machine()
        let (id, _) = try #require(
            Self.started(Self.request(Self.getAssertion, on: channel, into: &machine, at: .zero)))
        let failed = machine.phoneFailed(
            id: id, error: HybridClientError.timedOut(stage: .waitingForDevice, after: .seconds(120)), at: .seconds(1))
        #expect(failed.last == Self.answer([0x2F], on: channel))
        #expect(machine.nextDeadline == nil && machine.requestInFlight == nil)
    }

    @Test func anUnreachablePhoneFailsTheCeremonyAndRefusesForwardsAtOnce() throws {
        var (machine, channel) = try Self.machine()
        let (id, _) = try #require(
            Self.started(Self.request(Self.getAssertion, on: channel, into: &machine, at: .zero)))
        let gone = machine.phoneReachabilityChanged(unreachableBecause: "no Bluetooth adapter", at: .milliseconds(10))
        #expect(
            gone == [
                .event(.phoneReachability(unreachableBecause: "no Bluetooth adapter")),
                .cancelCeremony(id: id),
                .event(
                    .failed(
                        command: .getAssertion, status: .other,
                        message: "no phone can be reached: no Bluetooth adapter")),
                Self.answer([0x7F], on: channel),
            ])
        // A request for the phone is refused at once; one answered locally is served as always.
        let refused = Self.request(
            SecurityKeyBridgeTests.getAssertion(clientDataHash: 0x13), on: channel, into: &machine,
            at: .milliseconds(20))
        #expect(Self.started(refused) == nil && refused.last == Self.answer([0x7F], on: channel))
        #expect(machine.requestInFlight == nil && machine.nextDeadline == nil)
        let info = Self.request([0x04], on: channel, into: &machine, at: .milliseconds(30))
        #expect(info.last == Self.answer(SecurityKeyInfo.responseBytes, on: channel))
        // Once the phone can be reached again, requests go to it.
        _ = machine.phoneReachabilityChanged(unreachableBecause: nil, at: .milliseconds(35))
        let again = Self.request(
            SecurityKeyBridgeTests.getAssertion(clientDataHash: 0x14), on: channel, into: &machine,
            at: .milliseconds(40))
        #expect(Self.started(again) != nil)
    }
}

/// The actor over the core sleeps until the core's next deadline on its injected clock, and
/// nothing else times the request: the manual clock moves only when the test moves it.
@Suite(.timeLimit(.minutes(1))) struct SecurityKeyBridgeDeadlineTests {
    /// INIT on the broadcast channel; the channel in the answer's report (bytes 15–18).
    static func allocate(
        on bridge: SecurityKeyBridge, reading reports: inout AsyncStream<[UInt8]>.Iterator
    ) async -> UInt32 {
        await bridge.reportReceived(
            CTAPHIDStateMachineTests.initReport(0xFFFF_FFFF, 0x06, length: 8, CTAPHIDStateMachineTests.nonce))
        let initAnswer = await reports.next() ?? []
        return initAnswer[15...18].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    @Test func keepalivesAndTheHoldRunOnTheCoresDeadlines() async throws {
        let manual = TestManualClock.ManualClock()
        let (reports, output) = AsyncStream<[UInt8]>.makeStream()
        let bridge = SecurityKeyBridge(driver: ScriptedPhone([]), clock: manual, output: { output.yield($0) })
        var received = reports.makeAsyncIterator()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await bridge.runTimers() }
            let channel = await Self.allocate(on: bridge, reading: &received)
            // authenticatorSelection (0x0B): held.
            await bridge.reportReceived(CTAPHIDStateMachineTests.initReport(channel, 0x10, length: 1, [0x0B]))
            #expect(await bridge.nextDeadline == .milliseconds(100))
            await manual.sleeperArrived()
            manual.advance(by: .milliseconds(100))
            #expect(await received.next() == CTAPHIDStateMachineTests.initReport(channel, 0x3B, length: 1, [2]))
            // Thirty seconds on: the hold ends with CTAP2_ERR_USER_ACTION_TIMEOUT (0x2F); the
            // KEEPALIVE due then goes first.
            await manual.sleeperArrived()
            manual.advance(by: .milliseconds(29_900))
            #expect(await received.next() == CTAPHIDStateMachineTests.initReport(channel, 0x3B, length: 1, [2]))
            #expect(await received.next() == CTAPHIDStateMachineTests.initReport(channel, 0x10, length: 1, [0x2F]))
            #expect(await bridge.nextDeadline == nil)
            await bridge.shutdown()
            group.cancelAll()
        }
    }

    /// A phone that keeps its tunnel open after the answer: the actor sleeps until the core's
    /// linger deadline, three minutes on the manual clock, then closes the tunnel (cancels the
    /// phone task), which is reported as the linger's expiry.
    @Test func theLingerEndsAtTheCoresDeadline() async throws {
        let manual = TestManualClock.ManualClock()
        let tunnel = LingeringTunnel()
        let (reports, output) = AsyncStream<[UInt8]>.makeStream()
        let (events, eventSink) = AsyncStream<SecurityKeyEvent>.makeStream()
        let bridge = SecurityKeyBridge(
            driver: ScriptedPhone([.replyThenLinger(SecurityKeyBridgeTests.phoneReply, tunnel)]), clock: manual,
            output: { output.yield($0) }, events: { eventSink.yield($0) })
        var received = reports.makeAsyncIterator()
        var started = tunnel.started.makeAsyncIterator()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await bridge.runTimers() }
            defer { group.cancelAll() }
            let channel = await Self.allocate(on: bridge, reading: &received)
            let request = CTAPHIDMessage(
                channel: channel, command: .cbor, payload: SecurityKeyBridgeTests.getAssertion())
            for report in request.reports { await bridge.reportReceived(report) }
            #expect(await started.next() != nil)  // answered; the tunnel lingers
            let deadline = await bridge.nextDeadline
            #expect(deadline == SecurityKeyStateMachineTests.linger)
            guard deadline != nil else {
                await bridge.shutdown()
                return
            }
            await manual.sleeperArrived()
            manual.advance(by: SecurityKeyStateMachineTests.linger)
            for await event in events {
                guard case .tunnelClosed(let end) = event else { continue }
                #expect(end.reason == .lingerExpired)
                break
            }
            #expect(await bridge.nextDeadline == nil)
            await bridge.shutdown()
        }
    }
}
