import HybridCore
import HybridSecurityKey
import TestSeededRandom
import TestSupport
import Testing

/// The channel, busy, cancel and timeout rules of CTAP 2.2 §11.2, driven by hand-built reports and
/// an explicit clock (no sleeps). The request in flight is the core's (its KEEPALIVEs and answer are
/// tested in SecurityKeyStateMachineTests); here each report says which channel it is on.
@Suite struct CTAPHIDStateMachineTests {
    typealias Action = CTAPHIDStateMachine.Action
    static let nonce: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]

    /// An initialization report, zero-padded.
    static func initReport(_ channel: UInt32, _ command: UInt8, length: Int, _ data: [UInt8]) -> [UInt8] {
        let head: [UInt8] = [
            UInt8(channel >> 24), UInt8(truncatingIfNeeded: channel >> 16), UInt8(truncatingIfNeeded: channel >> 8),
            UInt8(truncatingIfNeeded: channel), command | 0x80, UInt8(length >> 8), UInt8(length & 0xFF),
        ]
        return head + data + [UInt8](repeating: 0, count: 57 - data.count)
    }

    static func contReport(_ channel: UInt32, _ sequence: UInt8, _ data: [UInt8]) -> [UInt8] {
        let head: [UInt8] = [
            UInt8(channel >> 24), UInt8(truncatingIfNeeded: channel >> 16), UInt8(truncatingIfNeeded: channel >> 8),
            UInt8(truncatingIfNeeded: channel), sequence,
        ]
        return head + data + [UInt8](repeating: 0, count: 59 - data.count)
    }

    /// Allocates a channel through INIT on the broadcast channel and returns it.
    static func allocate(
        _ machine: inout CTAPHIDStateMachine, requestInFlight: UInt32? = nil, at now: Duration = .zero
    ) throws -> UInt32 {
        let actions = machine.reportReceived(
            initReport(0xFFFF_FFFF, 0x06, length: 8, nonce), requestInFlight: requestInFlight, at: now)
        guard case .send(let message) = try #require(actions.first) else { throw TestFailure("no INIT response") }
        let p = message.payload
        return UInt32(p[8]) << 24 | UInt32(p[9]) << 16 | UInt32(p[10]) << 8 | UInt32(p[11])
    }

    static func rejection(_ actions: [Action]) -> CTAPHIDRejection? {
        for case .reject(let rejection) in actions { return rejection }
        return nil
    }

    @Test func initOnBroadcastAllocatesAChannelAndEchoesTheNonce() throws {
        var machine = CTAPHIDStateMachine()
        let actions = machine.reportReceived(Self.initReport(0xFFFF_FFFF, 0x06, length: 8, Self.nonce), at: .zero)
        #expect(actions.count == 1)
        guard case .send(let message) = actions.first else {
            Issue.record("no response")
            return
        }
        #expect(message.channel == 0xFFFF_FFFF)
        #expect(message.command == .initialize)
        #expect(message.payload.count == 17)
        #expect(Array(message.payload[0..<8]) == Self.nonce)
        let channel =
            UInt32(message.payload[8]) << 24 | UInt32(message.payload[9]) << 16 | UInt32(message.payload[10]) << 8
            | UInt32(message.payload[11])
        #expect(channel != 0 && channel != 0xFFFF_FFFF)
        #expect(message.payload[12] == 2)  // CTAPHID protocol version
        // Capabilities: WINK 0x01 | CBOR 0x04 | NMSG 0x08.
        #expect(message.payload[16] == 0x0D)
        // The report on the wire: broadcast CID, 0x86, length 17.
        #expect(Array(message.reports[0][0..<7]) == [0xFF, 0xFF, 0xFF, 0xFF, 0x86, 0x00, 0x11])
        // A second INIT gives another channel.
        let second = try Self.allocate(&machine)
        #expect(second != channel)
    }

    @Test func initWithWrongLengthIsInvalidLength() {
        var machine = CTAPHIDStateMachine()
        let actions = machine.reportReceived(
            Self.initReport(0xFFFF_FFFF, 0x06, length: 7, Array(Self.nonce.prefix(7))), at: .zero)
        let rejection = Self.rejection(actions)
        #expect(rejection?.error == .invalidLength(.initialize, length: 7))
        #expect(
            rejection?.message.reports.first.map { Array($0[0..<8]) } == [0xFF, 0xFF, 0xFF, 0xFF, 0xBF, 0, 1, 0x03])
    }

    @Test func channelZeroBroadcastAndUnallocatedChannelsAreInvalid() throws {
        var machine = CTAPHIDStateMachine()
        #expect(
            Self.rejection(machine.reportReceived(Self.initReport(0, 0x01, length: 1, [9]), at: .zero))?.error
                == .invalidChannel(0))
        #expect(
            Self.rejection(machine.reportReceived(Self.initReport(0xFFFF_FFFF, 0x01, length: 1, [9]), at: .zero))?.error
                == .invalidChannel(0xFFFF_FFFF))
        let channel = try Self.allocate(&machine)
        let unallocated = channel &+ 100
        #expect(
            Self.rejection(machine.reportReceived(Self.initReport(unallocated, 0x01, length: 1, [9]), at: .zero))?.error
                == .invalidChannel(unallocated))
        // Error packet goes to the offending channel with code 0x0B.
        let actions = machine.reportReceived(Self.initReport(unallocated, 0x01, length: 1, [9]), at: .zero)
        #expect(Self.rejection(actions)?.message.payload == [0x0B])
    }

    @Test func pingEchoesAMultiPacketPayload() throws {
        var machine = CTAPHIDStateMachine()
        let channel = try Self.allocate(&machine)
        let payload = (0..<100).map { UInt8($0) }
        #expect(
            machine.reportReceived(Self.initReport(channel, 0x01, length: 100, Array(payload[0..<57])), at: .zero)
                .isEmpty)
        let actions = machine.reportReceived(Self.contReport(channel, 0, Array(payload[57...])), at: .milliseconds(10))
        #expect(actions == [.send(CTAPHIDMessage(channel: channel, command: .ping, payload: payload))])
    }

    @Test func outOfOrderContinuationIsInvalidSequence() throws {
        var machine = CTAPHIDStateMachine()
        let channel = try Self.allocate(&machine)
        _ = machine.reportReceived(
            Self.initReport(channel, 0x01, length: 200, [UInt8](repeating: 1, count: 57)), at: .zero)
        let actions = machine.reportReceived(Self.contReport(channel, 1, [UInt8](repeating: 2, count: 59)), at: .zero)
        #expect(Self.rejection(actions)?.error == .invalidSequence(expected: 0, received: 1))
        #expect(Self.rejection(actions)?.message.payload == [0x04])
        // The message is dropped: its next continuation is ignored.
        #expect(machine.reportReceived(Self.contReport(channel, 2, [3]), at: .zero).isEmpty)
    }

    @Test func newInitializationPacketMidMessageIsInvalidSequence() throws {
        var machine = CTAPHIDStateMachine()
        let channel = try Self.allocate(&machine)
        _ = machine.reportReceived(
            Self.initReport(channel, 0x01, length: 200, [UInt8](repeating: 1, count: 57)), at: .zero)
        let actions = machine.reportReceived(Self.initReport(channel, 0x01, length: 1, [1]), at: .zero)
        #expect(Self.rejection(actions)?.error == .invalidSequence(expected: 0, received: nil))
    }

    @Test func anotherChannelIsBusyWhileAMessageArrivesAndInitStillWorks() throws {
        var machine = CTAPHIDStateMachine()
        let first = try Self.allocate(&machine)
        let second = try Self.allocate(&machine)
        _ = machine.reportReceived(
            Self.initReport(first, 0x01, length: 200, [UInt8](repeating: 1, count: 57)), at: .zero)
        let busy = machine.reportReceived(Self.initReport(second, 0x01, length: 1, [1]), at: .zero)
        #expect(Self.rejection(busy)?.error == .channelBusy)
        #expect(Self.rejection(busy)?.message.channel == second)
        #expect(Self.rejection(busy)?.message.payload == [0x06])
        // INIT on the broadcast channel is answered even now.
        _ = try Self.allocate(&machine)
        // And a continuation on the other channel is ignored.
        #expect(machine.reportReceived(Self.contReport(second, 0, [1]), at: .zero).isEmpty)
    }

    @Test func stalledMessageTimesOutOnTheInjectedClock() throws {
        var machine = CTAPHIDStateMachine()
        let channel = try Self.allocate(&machine)
        _ = machine.reportReceived(
            Self.initReport(channel, 0x01, length: 200, [UInt8](repeating: 1, count: 57)), at: .zero)
        #expect(machine.nextDeadline == machine.configuration.messageTimeout)
        #expect(machine.tick(at: .milliseconds(499)).isEmpty)
        let actions = machine.tick(at: .milliseconds(500))
        #expect(Self.rejection(actions)?.error == .messageTimeout)
        #expect(Self.rejection(actions)?.message.payload == [0x05])
        #expect(machine.nextDeadline == nil)
    }

    @Test func unknownCommandsAndMsgAreInvalidCommand() throws {
        var machine = CTAPHIDStateMachine()
        let channel = try Self.allocate(&machine)
        for command: UInt8 in [0x03, 0x3B, 0x3F, 0x40, 0x7E, 0x00] {
            let actions = machine.reportReceived(Self.initReport(channel, command, length: 0, []), at: .zero)
            #expect(Self.rejection(actions)?.error == .invalidCommand(CTAPHIDCommand(rawValue: command)))
            #expect(Self.rejection(actions)?.message.payload == [0x01])
        }
    }

    @Test func winkAndLock() throws {
        var machine = CTAPHIDStateMachine()
        let channel = try Self.allocate(&machine)
        let other = try Self.allocate(&machine)
        #expect(
            machine.reportReceived(Self.initReport(channel, 0x08, length: 0, []), at: .zero)
                == [.send(CTAPHIDMessage(channel: channel, command: .wink, payload: [])), .wink])
        #expect(
            Self.rejection(machine.reportReceived(Self.initReport(channel, 0x04, length: 1, [11]), at: .zero))?.error
                == .invalidParameter(.lock))
        #expect(
            Self.rejection(machine.reportReceived(Self.initReport(channel, 0x04, length: 0, []), at: .zero))?.error
                == .invalidLength(.lock, length: 0))
        #expect(
            machine.reportReceived(Self.initReport(channel, 0x04, length: 1, [2]), at: .zero) == [
                .send(CTAPHIDMessage(channel: channel, command: .lock, payload: []))
            ])
        #expect(
            Self.rejection(machine.reportReceived(Self.initReport(other, 0x01, length: 0, []), at: .seconds(1)))?.error
                == .channelBusy)
        // The lock ends after 2 s.
        #expect(
            machine.reportReceived(Self.initReport(other, 0x01, length: 0, []), at: .seconds(2)) == [
                .send(CTAPHIDMessage(channel: other, command: .ping, payload: []))
            ])
    }

    /// A CBOR message is handed on whole; while it is in flight (the core says so with each
    /// report), other channels are busy, and this layer has no deadline of its own for it.
    @Test func cborRequestIsHandedOnAndOthersAreBusyWhileItIsInFlight() throws {
        var machine = CTAPHIDStateMachine()
        let channel = try Self.allocate(&machine)
        let actions = machine.reportReceived(Self.initReport(channel, 0x10, length: 1, [0x04]), at: .zero)
        #expect(actions == [.startRequest(channel: channel, payload: [0x04])])
        #expect(machine.nextDeadline == nil)
        // Other channels are busy meanwhile, and so is the owner's own for a second request.
        let other = try Self.allocate(&machine, requestInFlight: channel)
        for sender in [other, channel] {
            #expect(
                Self.rejection(
                    machine.reportReceived(
                        Self.initReport(sender, 0x10, length: 1, [0x04]), requestInFlight: channel,
                        at: .milliseconds(250)))?.error == .channelBusy)
        }
        // Once it is answered, the next request is handed on.
        #expect(
            machine.reportReceived(Self.initReport(other, 0x10, length: 1, [0x04]), at: .milliseconds(260)) == [
                .startRequest(channel: other, payload: [0x04])
            ])
    }

    @Test func emptyCborIsInvalidLength() throws {
        var machine = CTAPHIDStateMachine()
        let channel = try Self.allocate(&machine)
        #expect(
            Self.rejection(machine.reportReceived(Self.initReport(channel, 0x10, length: 0, []), at: .zero))?.error
                == .invalidLength(.cbor, length: 0))
    }

    /// (That the late answer is dropped is the core's: SecurityKeyStateMachineTests.)
    @Test func cancelAnswersKeepaliveCancelAtOnce() throws {
        var machine = CTAPHIDStateMachine()
        let channel = try Self.allocate(&machine)
        _ = machine.reportReceived(Self.initReport(channel, 0x10, length: 1, [0x02]), at: .zero)
        let actions = machine.reportReceived(
            Self.initReport(channel, 0x11, length: 0, []), requestInFlight: channel, at: .milliseconds(30))
        #expect(
            actions == [
                .cancelRequest(reason: .cancelCommand),
                .send(CTAPHIDMessage(channel: channel, command: .cbor, payload: [0x2D])),
            ])
        // CANCEL for nothing is ignored, and never answered.
        #expect(machine.reportReceived(Self.initReport(channel, 0x11, length: 0, []), at: .milliseconds(50)).isEmpty)
    }

    @Test func initOnTheBusyChannelAbandonsItsRequest() throws {
        var machine = CTAPHIDStateMachine()
        let channel = try Self.allocate(&machine)
        _ = machine.reportReceived(Self.initReport(channel, 0x10, length: 1, [0x02]), at: .zero)
        let actions = machine.reportReceived(
            Self.initReport(channel, 0x06, length: 8, Self.nonce), requestInFlight: channel, at: .zero)
        #expect(actions.first == .cancelRequest(reason: .channelResynchronized))
        guard case .send(let message) = actions.last else {
            Issue.record("no INIT answer")
            return
        }
        #expect(message.channel == channel)
        #expect(
            Array(message.payload[8..<12]) == [
                UInt8(channel >> 24), UInt8(truncatingIfNeeded: channel >> 16), UInt8(truncatingIfNeeded: channel >> 8),
                UInt8(truncatingIfNeeded: channel),
            ])
    }

    /// (That the request in flight ends is the core's: SecurityKeyStateMachineTests.)
    @Test func closingTheDeviceDropsAHalfSentMessage() throws {
        var machine = CTAPHIDStateMachine()
        let channel = try Self.allocate(&machine)
        _ = machine.reportReceived(
            Self.initReport(channel, 0x10, length: 200, [UInt8](repeating: 1, count: 57)), at: .zero)
        #expect(machine.nextDeadline == machine.configuration.messageTimeout)
        machine.deviceClosed()
        #expect(machine.nextDeadline == nil)
        #expect(machine.reportReceived(Self.contReport(channel, 0, [1]), at: .milliseconds(1)).isEmpty)
    }

    @Test func wrongSizedReportIsIgnoredWithItsReason() {
        var machine = CTAPHIDStateMachine()
        #expect(machine.reportReceived([1, 2, 3], at: .zero) == [.ignore(.wrongReportSize(3))])
    }

    /// Seeded random reports: each yields typed actions, never a trap, and any ERROR answer
    /// carries one of the spec's codes.
    @Test func randomReportsGiveTypedAnswers() {
        let seed: UInt64 = 0x5EC_0EE1
        print("randomReportsGiveTypedAnswers seed \(seed)")
        var generator = SeededRandom(seed: seed)
        var machine = CTAPHIDStateMachine(random: SeededRandom(seed: seed ^ 1))
        let codes: Set<UInt8> = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x0B]
        // Channel IDs are random: some reports are INITs on the broadcast channel, and every third
        // goes to a channel the machine handed out (or 0 or broadcast), to get past the channel check.
        var channels: [UInt32] = [0, 0xFFFF_FFFF]
        for step in 0..<5000 {
            let count = step % 50 == 0 ? Int(generator.next() % 70) : 64
            var report = (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            if count == 64 && step % 97 == 1 {
                report = Self.initReport(0xFFFF_FFFF, 0x06, length: 8, Self.nonce)
            } else if count == 64 && step % 3 == 0 {
                let channel = channels[Int(generator.next() % UInt64(channels.count))]
                report[0...3] =
                    [
                        UInt8(channel >> 24), UInt8(truncatingIfNeeded: channel >> 16),
                        UInt8(truncatingIfNeeded: channel >> 8), UInt8(truncatingIfNeeded: channel),
                    ][...]
            }
            for action in machine.reportReceived(report, at: .milliseconds(Int64(step))) {
                switch action {
                case .reject(let rejection): #expect(codes.contains(rejection.error.code.rawValue))
                case .ignore(let error): #expect(error == .wrongReportSize(count))
                case .startRequest(let channel, _): #expect(channels.contains(channel))
                case .send(let message) where message.command == .initialize && message.channel == 0xFFFF_FFFF:
                    let p = message.payload
                    channels.append(UInt32(p[8]) << 24 | UInt32(p[9]) << 16 | UInt32(p[10]) << 8 | UInt32(p[11]))
                default: break
                }
            }
        }
        #expect(channels.count > 2, "no INIT got through: the test exercised only invalid channels")
    }
}
