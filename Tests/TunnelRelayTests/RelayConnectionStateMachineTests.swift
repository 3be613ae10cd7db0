import NIOCore
import NIOWebSocket
import Testing

@testable import TunnelRelay

/// ``RelayConnectionStateMachine`` without sockets: frames written out from RFC 6455 (§5.2 and the
/// examples of §5.7), budgets that refuse on demand, and every interleaving the handler's flags
/// used to guard. Expected frames come from the RFC, not from the relay's encoder.
struct RelayConnectionStateMachineTests {
    typealias Action = RelayConnectionStateMachine.Action

    /// A budget that counts and refuses on demand.
    final class Budget: RelayConnectionBudget {
        var queued = 0
        var queueLimit = Int.max
        /// `hold` fails while the read path holds fragments (a message being reassembled).
        var refuseFragments = false
        var forwarded: [Int] = []

        func reserveQueued(_ bytes: Int) -> Bool {
            guard queued + bytes <= queueLimit else { return false }
            queued += bytes
            return true
        }

        func releaseQueued(_ bytes: Int) { queued -= bytes }

        func hold(undecoded: Int, fragments: Int) -> Bool { !(refuseFragments && fragments > 0) }

        func forwarding(_ length: Int) { forwarded.append(length) }
    }

    static func machine(
        side: TunnelSide = .new, budget: Budget = Budget(), _ configure: (inout RelayConfiguration) -> Void = { _ in }
    ) -> Machine {
        var configuration = RelayConfiguration()
        configure(&configuration)
        return Machine(
            machine: RelayConnectionStateMachine(side: side, limits: .init(configuration), budget: budget),
            budget: budget)
    }

    /// The machine as these tests drive it: what it asks of the budgets is performed on the test
    /// ``Budget``, as ``RelayTunnelHandler`` performs it on the relay's: `.releaseQueued` gives the
    /// charge back (and is left out of the lists compared here, which are the connection's
    /// actions), a tracked `.forward` is charged. ``queueChargeIsGivenBackAsAnAction()`` looks at
    /// the machine's own lists.
    struct Machine {
        var machine: RelayConnectionStateMachine
        let budget: Budget

        var pauseReasons: RelayReadPause { machine.pauseReasons }

        mutating func read(_ data: ByteBuffer) -> Bool { machine.read(data) == .parseFrames }

        mutating func nextFrame(socketWritable: Bool) -> [Action]? {
            guard let actions = machine.nextFrame(socketWritable: socketWritable) else { return nil }
            return Self.perform(actions, on: budget)
        }

        mutating func endOfRead() -> [Action] { Self.perform(machine.endOfRead(), on: budget) }
        mutating func readComplete() -> [Action] { Self.perform(machine.readComplete(), on: budget) }
        mutating func peerJoinedTunnel() -> [Action] { Self.perform(machine.peerJoinedTunnel(), on: budget) }
        mutating func pongWritten() -> [Action] { Self.perform(machine.pongWritten(), on: budget) }
        mutating func pingTick() -> [Action] { Self.perform(machine.pingTick(), on: budget) }
        mutating func connectionClosed() -> [Action] { Self.perform(machine.connectionClosed(), on: budget) }

        mutating func closeCommand(_ code: RelayCloseCode) -> [Action] {
            Self.perform(machine.closeCommand(code), on: budget)
        }

        mutating func peerWritabilityChanged(_ writable: Bool) -> [Action] {
            Self.perform(machine.peerWritabilityChanged(writable), on: budget)
        }

        mutating func writabilityChanged(_ writable: Bool) -> [Action] {
            Self.perform(machine.writabilityChanged(writable), on: budget)
        }

        private static func perform(_ actions: [Action], on budget: Budget) -> [Action] {
            actions.filter { action in
                if case .releaseQueued(let bytes) = action {
                    budget.releaseQueued(bytes)
                    return false
                }
                if case .forward(let payload, _, tracked: true) = action { budget.forwarding(payload.readableBytes) }
                return true
            }
        }
    }

    // RFC 6455 §5.7: the masking key 0x37fa213d and "Hello" masked with it.
    static let mask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
    static let maskedHello: [UInt8] = [0x7F, 0x9F, 0x4D, 0x51, 0x58]
    /// A single-frame masked binary message "Hello" (§5.7's text example with opcode 2).
    static let binaryHello: [UInt8] = [0x82, 0x85] + mask + maskedHello
    /// A masked text message "Hello" (§5.7).
    static let textHello: [UInt8] = [0x81, 0x85] + mask + maskedHello
    /// A masked ping with body "Hello".
    static let pingHello: [UInt8] = [0x89, 0x85] + mask + maskedHello
    /// The unmasked pong a server answers it with (§5.7: 0x8a 0x05 "Hello").
    static let pongHello: [UInt8] = [0x8A, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F]
    /// A fragmented unmasked binary message "Hel" + "lo" (§5.7's fragmented example, opcode 2).
    static let firstFragment: [UInt8] = [0x02, 0x03, 0x48, 0x65, 0x6C]
    static let lastFragment: [UInt8] = [0x80, 0x02, 0x6C, 0x6F]
    /// A masked close frame with code 1000 (0x03e8 masked with 0x37fa).
    static let clientClose: [UInt8] = [0x88, 0x82] + mask + [0x34, 0x12]

    /// A server close frame (unmasked) with `code`, big-endian (§5.5.1).
    static func serverClose(_ code: UInt16) -> ByteBuffer {
        ByteBuffer(bytes: [0x88, 0x02, UInt8(code >> 8), UInt8(code & 0xFF)])
    }

    /// The actions of closing with `code` (RFC 6455 §7.4 code numbers).
    static func closing(_ code: RelayCloseCode, number: UInt16) -> [Action] {
        #expect(code.rawValue == number)
        return [
            .endTunnel(.relay(code)), .countClose(code), .write(serverClose(number), then: .nothing), .startCloseTimer,
        ]
    }

    /// One read cycle as the shell drives it; with `pongsWriteAtOnce`, each pong's write
    /// completes before the next frame (a writable socket takes a small write at once).
    static func read(_ machine: inout Machine, _ bytes: [UInt8], writable: Bool = true, pongsWriteAtOnce: Bool = false)
        -> [Action]
    {
        guard machine.read(ByteBuffer(bytes: bytes)) else { return [] }
        var actions: [Action] = []
        while let frameActions = machine.nextFrame(socketWritable: writable) {
            actions += frameActions
            if pongsWriteAtOnce,
                frameActions.contains(where: { if case .write(_, .pongWritten) = $0 { true } else { false } })
            {
                actions += machine.pongWritten()
            }
        }
        return actions + machine.endOfRead()
    }

    // MARK: Forwarding and queueing

    @Test func forwardsAfterTheReadCycle() {
        var machine = Self.machine()
        #expect(machine.peerJoinedTunnel() == [.flushPeer])
        let actions = Self.read(&machine, Self.binaryHello + Self.binaryHello)
        let hello = Action.forward(
            payload: ByteBuffer(bytes: Self.maskedHello), maskKey: WebSocketMaskingKey(Self.mask), tracked: false)
        #expect(actions == [hello, hello])
        #expect(machine.readComplete() == [.flushPeer, .countForwarded(messages: 2, bytes: 10)])
        #expect(machine.readComplete() == [.flushPeer])
    }

    @Test func queuesUntilThePeerJoinsThenPausesWhenFull() {
        let budget = Budget()
        var machine = Self.machine(budget: budget) { $0.maxQueuedMessages = 2 }
        #expect(Self.read(&machine, Self.binaryHello).isEmpty)
        #expect(Self.read(&machine, Self.binaryHello) == [.setReading(false), .readsPaused(true, reasons: .queueFull)])
        #expect(budget.queued == 2 * (5 + RelayAccounting.queuedMessageOverhead))
        let unmaskedHello = ByteBuffer(bytes: [0x82, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
        #expect(
            machine.peerJoinedTunnel() == [
                .forwardEncoded(unmaskedHello), .forwardEncoded(unmaskedHello), .flushPeer,
                .countForwarded(messages: 2, bytes: 10),
                .readsPaused(false, reasons: []), .setReading(true),
            ])
        #expect(budget.queued == 0)
        #expect(machine.peerJoinedTunnel().isEmpty)
    }

    @Test func largeMessagesAreTrackedInFlight() {
        let budget = Budget()
        var machine = Self.machine(budget: budget) { $0.inFlightAllowancePerConnection = 4 }
        _ = machine.peerJoinedTunnel()
        let actions = Self.read(&machine, Self.binaryHello)
        #expect(
            actions == [
                .forward(
                    payload: ByteBuffer(bytes: Self.maskedHello), maskKey: WebSocketMaskingKey(Self.mask), tracked: true
                )
            ])
        #expect(budget.forwarded == [5])
    }

    @Test func textFrameIsAPolicyViolation() {
        var machine = Self.machine()
        #expect(Self.read(&machine, Self.textHello) == Self.closing(.policyViolation, number: 1008))
    }

    // MARK: Close while paused

    /// Paused for the peer's full socket, then told to close: the close frame goes out; reading
    /// resumes when the peer drains (the client's close reply must still be read), and the pause
    /// is counted off once.
    @Test func closeWhilePausedThenPeerDrains() {
        var machine = Self.machine()
        #expect(
            machine.peerWritabilityChanged(false) == [
                .setReading(false), .readsPaused(true, reasons: .peerNotWritable),
            ])
        #expect(machine.closeCommand(.goingAway) == Self.closing(.goingAway, number: 1001))
        #expect(machine.closeCommand(.peerClosed).isEmpty, "one close frame only")
        #expect(machine.peerWritabilityChanged(true) == [.readsPaused(false, reasons: []), .setReading(true)])
        #expect(machine.connectionClosed() == [.endTunnel(.dropped)])
    }

    /// Closed while still paused: the connection's end counts the pause off.
    @Test func closeWhilePausedThenConnectionEnds() {
        var machine = Self.machine()
        _ = machine.peerWritabilityChanged(false)
        _ = machine.closeCommand(.goingAway)
        #expect(machine.connectionClosed() == [.endTunnel(.dropped), .readsPaused(false, reasons: [])])
        #expect(machine.pauseReasons.isEmpty)
    }

    /// Closing drops the pre-pairing queue and gives its charge back.
    @Test func closeWhileQueuedReleasesTheQueue() {
        let budget = Budget()
        var machine = Self.machine(budget: budget)
        _ = Self.read(&machine, Self.binaryHello)
        #expect(budget.queued > 0)
        _ = machine.closeCommand(.pendingExpired)
        #expect(budget.queued == 0)
        #expect(machine.peerJoinedTunnel() == [.flushPeer], "nothing queued is forwarded after the close")
    }

    // MARK: Pong while the socket is full

    @Test func pongWhileSocketFullPausesInstead() {
        var machine = Self.machine()
        #expect(
            Self.read(&machine, Self.pingHello, writable: false) == [
                .pongSkipped, .setReading(false), .readsPaused(true, reasons: .notWritable),
            ])
        #expect(machine.writabilityChanged(true) == [.readsPaused(false, reasons: []), .setReading(true)])
        #expect(Self.read(&machine, Self.pingHello) == [.write(ByteBuffer(bytes: Self.pongHello), then: .pongWritten)])
        // A second ping while that pong is still being written: skipped, reading paused.
        #expect(
            Self.read(&machine, Self.pingHello) == [
                .pongSkipped, .setReading(false), .readsPaused(true, reasons: .pongPending),
            ])
        // Socket full as well: a second reason, no second pause.
        #expect(Self.read(&machine, Self.pingHello, writable: false) == [.pongSkipped])
        #expect(machine.pongWritten().isEmpty, "still not writable")
        #expect(machine.writabilityChanged(true) == [.readsPaused(false, reasons: []), .setReading(true)])
    }

    /// Three pings in one read, each pong written before the next frame is looked at: three
    /// pongs, no pause (RFC 6455 §5.5.2: a ping is answered as soon as practical).
    @Test func pingsInOneReadAreEachAnsweredWhenPongsWriteAtOnce() {
        var machine = Self.machine()
        let pong = Action.write(ByteBuffer(bytes: Self.pongHello), then: .pongWritten)
        #expect(
            Self.read(&machine, Self.pingHello + Self.pingHello + Self.pingHello, pongsWriteAtOnce: true) == [
                pong, pong, pong,
            ])
        #expect(machine.pauseReasons.isEmpty)
    }

    @Test func pingFloodStopsReading() {
        var machine = Self.machine { $0.maxPingsPerInterval = 1 }
        _ = Self.read(&machine, Self.pingHello)
        _ = machine.pongWritten()
        #expect(
            Self.read(&machine, Self.pingHello + Self.binaryHello) == [
                .setReading(false), .readsPaused(true, reasons: .closing), .discardInbound,
            ] + Self.closing(.limitExceeded, number: 4004))
        #expect(Self.read(&machine, Self.pingHello).isEmpty, "nothing more is read")
        // The next interval forgives the count, but the machine is closing: no ping either.
        #expect(machine.pingTick().isEmpty)
    }

    @Test func pingAfterCloseIsNotAnswered() {
        var machine = Self.machine()
        _ = machine.closeCommand(.goingAway)
        #expect(Self.read(&machine, Self.pingHello).isEmpty)
    }

    // MARK: Budget refusal during reassembly

    /// The first fragment does not fit the in-flight budget: 1013, reads stop, the rest of the
    /// message is never looked at.
    @Test func budgetRefusalDuringReassembly() {
        let budget = Budget()
        budget.refuseFragments = true
        var machine = Self.machine(budget: budget)
        _ = machine.peerJoinedTunnel()
        #expect(
            Self.read(&machine, Self.firstFragment) == [
                .setReading(false), .readsPaused(true, reasons: .closing), .discardInbound,
            ] + Self.closing(.tryAgainLater, number: 1013))
        #expect(Self.read(&machine, Self.lastFragment).isEmpty)
        #expect(machine.readComplete() == [.flushPeer])
        #expect(machine.connectionClosed() == [.endTunnel(.dropped), .readsPaused(false, reasons: [])])
    }

    /// The same message with a budget that fits: reassembled, unmasked, forwarded once.
    @Test func fragmentsAreReassembled() {
        var machine = Self.machine()
        _ = machine.peerJoinedTunnel()
        #expect(Self.read(&machine, Self.firstFragment).isEmpty)
        #expect(
            Self.read(&machine, Self.pingHello) == [.write(ByteBuffer(bytes: Self.pongHello), then: .pongWritten)],
            "a control frame between fragments")
        #expect(
            Self.read(&machine, Self.lastFragment) == [
                .forward(payload: ByteBuffer(bytes: Array("Hello".utf8)), maskKey: nil, tracked: false)
            ])
    }

    /// A frame split across reads is held until whole.
    @Test func frameSplitAcrossReads() {
        var machine = Self.machine()
        _ = machine.peerJoinedTunnel()
        #expect(Self.read(&machine, Array(Self.binaryHello.prefix(3))).isEmpty)
        #expect(Self.read(&machine, Array(Self.binaryHello.dropFirst(3))).count == 1)
    }

    // MARK: Peer close during drain

    /// The peer joins while this side's queue holds messages and its close command arrives right
    /// behind: the queued messages go out first, then one close.
    @Test func peerCloseDuringDrain() {
        var machine = Self.machine()
        _ = Self.read(&machine, Self.binaryHello)
        let drained = machine.peerJoinedTunnel()
        #expect(drained.first == .forwardEncoded(ByteBuffer(bytes: [0x82, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])))
        #expect(machine.closeCommand(.peerClosed) == Self.closing(.peerClosed, number: 4000))
        // Messages the client sends after the close are not forwarded; its close reply ends TCP.
        #expect(Self.read(&machine, Self.binaryHello + Self.clientClose) == [.closeConnection])
    }

    /// The client closes first: the code is echoed (§5.5.1) and TCP closes once it is written.
    @Test func clientCloseIsEchoed() {
        var machine = Self.machine()
        #expect(
            Self.read(&machine, Self.clientClose) == [
                .endTunnel(.closeFrame), .write(ByteBuffer(bytes: [0x88, 0x02, 0x03, 0xE8]), then: .closeConnection),
            ])
        #expect(machine.closeCommand(.peerClosed).isEmpty)
    }

    // MARK: Pings from the relay

    @Test func silentClientIsPingedThenClosed() {
        var machine = Self.machine()
        #expect(machine.pingTick().isEmpty, "the upgrade request was heard")
        #expect(machine.pingTick() == [.write(ByteBuffer(bytes: [0x89, 0x00]), then: .nothing), .countPing])
        #expect(machine.pingTick() == Self.closing(.idleTimeout, number: 4005))
    }

    @Test func readingBetweenTicksKeepsTheConnection() {
        var machine = Self.machine()
        _ = machine.pingTick()
        _ = machine.pingTick()
        _ = Self.read(&machine, [0x8A, 0x80] + Self.mask)  // an empty masked pong
        #expect(machine.pingTick().isEmpty, "read since the last tick")
        #expect(machine.pingTick().count == 2, "silent again: pinged, not closed")
    }

    // MARK: The machine's own lists: budget actions and the lifecycle

    /// Reads one cycle of `bytes` into `machine` (no pongs written in between).
    static func readCycle(_ machine: inout RelayConnectionStateMachine, _ bytes: [UInt8]) -> [Action] {
        guard machine.read(ByteBuffer(bytes: bytes)) == .parseFrames else { return [] }
        var actions: [Action] = []
        while let frameActions = machine.nextFrame(socketWritable: true) { actions += frameActions }
        return actions + machine.endOfRead()
    }

    /// Giving back the pre-pairing charge is an action, not a call into the budget: when the queue
    /// goes to the peer, when closing drops it, when the connection ends and when the handler
    /// leaves.
    @Test func queueChargeIsGivenBackAsAnAction() {
        let budget = Budget()
        let charge = 5 + RelayAccounting.queuedMessageOverhead
        let limits = RelayConnectionStateMachine.Limits(RelayConfiguration())
        var joining = RelayConnectionStateMachine(side: .new, limits: limits, budget: budget)
        #expect(Self.readCycle(&joining, Self.binaryHello).isEmpty)
        #expect(budget.queued == charge)
        #expect(joining.peerJoinedTunnel().first == .releaseQueued(charge))
        #expect(budget.queued == charge, "the machine does not call the budget to give back")

        var closing = RelayConnectionStateMachine(side: .new, limits: limits, budget: budget)
        _ = Self.readCycle(&closing, Self.binaryHello)
        #expect(closing.closeCommand(.pendingExpired).first == .releaseQueued(charge))
        #expect(closing.removed().isEmpty, "given back once")

        var clientClosing = RelayConnectionStateMachine(side: .new, limits: limits, budget: budget)
        #expect(Self.readCycle(&clientClosing, Self.binaryHello + Self.clientClose).first == .releaseQueued(charge))

        var dropped = RelayConnectionStateMachine(side: .new, limits: limits, budget: budget)
        _ = Self.readCycle(&dropped, Self.binaryHello)
        #expect(dropped.connectionClosed() == [.endTunnel(.dropped), .releaseQueued(charge)])

        var removed = RelayConnectionStateMachine(side: .new, limits: limits, budget: budget)
        _ = Self.readCycle(&removed, Self.binaryHello)
        #expect(removed.removed() == [.releaseQueued(charge)])
        #expect(removed.removed().isEmpty)
    }

    /// Who sent the first close frame, and whether the peer had joined, are in the state.
    @Test func closingRecordsWhoClosedFirst() {
        var byClient = Self.machine()
        _ = Self.read(&byClient, Self.clientClose)
        guard case .closing(let client) = byClient.machine.state else {
            Issue.record("not closing after the client's close frame")
            return
        }
        #expect(client.initiator == .client)
        #expect(!client.peerJoined)
        #expect(client.readsFrames)

        var byRelay = Self.machine()
        _ = byRelay.peerJoinedTunnel()
        _ = byRelay.closeCommand(.peerClosed)
        guard case .closing(let relay) = byRelay.machine.state else {
            Issue.record("not closing after a close command")
            return
        }
        #expect(relay.initiator == .relay(.peerClosed))
        #expect(relay.peerJoined)
    }

    /// Once the TCP connection is gone nothing changes: no close frame, no pause, no ping, nothing
    /// read; the read cycle in progress still flushes what it forwarded to a joined peer.
    @Test func closedIsTerminal() {
        var machine = Self.machine()
        _ = machine.peerJoinedTunnel()
        #expect(machine.connectionClosed() == [.endTunnel(.dropped)])
        #expect(machine.closeCommand(.goingAway).isEmpty)
        #expect(machine.peerWritabilityChanged(false).isEmpty)
        #expect(machine.pingTick().isEmpty)
        #expect(machine.pingTick().isEmpty)
        #expect(machine.connectionClosed().isEmpty)
        #expect(machine.readComplete() == [.flushPeer])
        let readsMore = machine.read(ByteBuffer(bytes: Self.binaryHello))
        #expect(!readsMore)
    }
}
