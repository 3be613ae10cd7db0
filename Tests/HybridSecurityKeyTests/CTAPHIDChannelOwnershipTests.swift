import HybridCore
import HybridSecurityKey
import TestSeededRandom
import Testing

/// Who may touch whose transaction, and how channel IDs are chosen. Every party that opens the
/// hidraw node shares it; the channel ID is all that tells them apart. Reports are written out from
/// the CTAP 2.2 §11.2.4 layout (CID big-endian, CMD | 0x80, BCNT big-endian, data, zero padding to
/// 64 bytes): INIT 0x86, PING 0x81, LOCK 0x84, CBOR 0x90, CANCEL 0x91, ERROR 0xBF, KEEPALIVE 0xBB;
/// ERR_INVALID_CHANNEL 0x0B, ERR_CHANNEL_BUSY 0x06 (§11.2.9.1.6).
@Suite struct CTAPHIDChannelOwnershipTests {
    typealias Action = CTAPHIDStateMachine.Action

    /// Hands out the given values in order, then repeats the last (a scripted random source).
    struct ScriptedRandom: RandomNumberGenerator, Sendable {
        var values: [UInt64]
        mutating func next() -> UInt64 { values.count > 1 ? values.removeFirst() : values[0] }
    }

    static func padded(_ bytes: [UInt8]) -> [UInt8] { bytes + [UInt8](repeating: 0, count: 64 - bytes.count) }

    /// INIT on the broadcast channel with nonce 01…08: `FFFFFFFF 86 0008 0102030405060708`.
    static let broadcastInit = padded([0xFF, 0xFF, 0xFF, 0xFF, 0x86, 0x00, 0x08, 1, 2, 3, 4, 5, 6, 7, 8])

    static func bytes(_ channel: UInt32) -> [UInt8] {
        [
            UInt8(channel >> 24), UInt8(truncatingIfNeeded: channel >> 16), UInt8(truncatingIfNeeded: channel >> 8),
            UInt8(truncatingIfNeeded: channel),
        ]
    }

    /// An initialization report on `channel`: command byte (with 0x80 set) and its payload.
    static func report(_ channel: UInt32, _ command: UInt8, _ payload: [UInt8]) -> [UInt8] {
        padded(bytes(channel) + [command, 0, UInt8(payload.count)] + payload)
    }

    /// INIT on the broadcast channel; the CID in the answer (bytes 8–11 of its payload).
    static func allocate(_ machine: inout CTAPHIDStateMachine, requestInFlight: UInt32? = nil) throws -> UInt32 {
        let actions = machine.reportReceived(broadcastInit, requestInFlight: requestInFlight, at: .zero)
        guard case .send(let answer)? = actions.first, answer.payload.count == 17 else { throw Failure() }
        let p = answer.payload
        return UInt32(p[8]) << 24 | UInt32(p[9]) << 16 | UInt32(p[10]) << 8 | UInt32(p[11])
    }

    struct Failure: Error {}

    /// The reports a list of actions writes to the host.
    static func written(_ actions: [Action]) -> [[UInt8]] {
        actions.flatMap { action -> [[UInt8]] in
            switch action {
            case .send(let message): message.reports
            case .reject(let rejection): rejection.message.reports
            default: []
            }
        }
    }

    @Test func channelIDsComeFromTheInjectedSourceNeverReservedNeverInUse() throws {
        // 0 and FFFFFFFF are reserved (§11.2.4); the repeated 12345678 is in use by then.
        let random = ScriptedRandom(values: [0, 0xFFFF_FFFF, 0x1234_5678, 0x1234_5678, 0xFFFF_FFFF_9ABC_DEF0])
        var machine = CTAPHIDStateMachine(random: random)
        let first = machine.reportReceived(Self.broadcastInit, at: .zero)
        // The answer on the broadcast channel: nonce, new CID, protocol 2, version 1.0.0, caps 0x0D.
        #expect(
            Self.written(first) == [
                Self.padded(
                    [
                        0xFF, 0xFF, 0xFF, 0xFF, 0x86, 0x00, 0x11, 1, 2, 3, 4, 5, 6, 7, 8, 0x12, 0x34, 0x56, 0x78, 2, 1,
                        0, 0, 0x0D,
                    ])
            ])
        #expect(try Self.allocate(&machine) == 0x9ABC_DEF0)
        // Both work; a neighbour of either does not.
        #expect(
            Self.written(machine.reportReceived(Self.report(0x1234_5678, 0x81, [7]), at: .zero)) == [
                Self.report(0x1234_5678, 0x81, [7])
            ])
        #expect(
            Self.written(machine.reportReceived(Self.report(0x1234_5679, 0x81, [7]), at: .zero)) == [
                Self.report(0x1234_5679, 0xBF, [0x0B])
            ])
    }

    @Test func aSourceThatGivesOnlyReservedIDsGetsINITRefusedNotALoop() {
        var machine = CTAPHIDStateMachine(random: ScriptedRandom(values: [0]))
        #expect(
            Self.written(machine.reportReceived(Self.broadcastInit, at: .zero)) == [
                Self.report(0xFFFF_FFFF, 0xBF, [0x06])
            ])
    }

    /// With the system generator (the default), consecutive INITs give IDs that are not neighbours.
    /// Seeded too, to show the same of any source.
    @Test func consecutiveChannelsAreNotNeighbours() throws {
        var system = SystemRandomNumberGenerator()
        let seed = system.next()
        print("consecutiveChannelsAreNotNeighbours seed \(seed)")
        for var machine in [CTAPHIDStateMachine(), CTAPHIDStateMachine(random: SeededRandom(seed: seed))] {
            let channels = try (0..<32).map { _ in try Self.allocate(&machine) }
            #expect(Set(channels).count == 32)
            #expect(!channels.contains(0) && !channels.contains(0xFFFF_FFFF))
            let neighbours = zip(channels, channels.dropFirst()).filter { $1 &- $0 == 1 }.count
            #expect(neighbours == 0, "\(channels)")
        }
    }

    @Test func cancelFromAnotherChannelIsIgnoredAndTheRequestGoesOn() throws {
        var machine = CTAPHIDStateMachine()
        let owner = try Self.allocate(&machine)
        let other = try Self.allocate(&machine)
        #expect(
            machine.reportReceived(Self.report(owner, 0x90, [0x04]), at: .zero) == [
                .startRequest(channel: owner, payload: [0x04])
            ])
        // §11.2.9.1.5: CANCEL on a non-active CID SHALL be ignored: nothing cancelled, nothing written.
        #expect(
            machine.reportReceived(Self.report(other, 0x91, []), requestInFlight: owner, at: .milliseconds(10))
                .isEmpty)
        // The owner's own CANCEL still reaches the request (its KEEPALIVEs and answer are the
        // core's: SecurityKeyStateMachineTests.aCancelFromAnotherChannelLeavesTheRequestAlone).
        #expect(
            Self.written(
                machine.reportReceived(Self.report(owner, 0x91, []), requestInFlight: owner, at: .milliseconds(20)))
                == [Self.report(owner, 0x90, [0x2D])])
    }

    @Test func initOnTheBroadcastChannelFromAnotherPartyLeavesTransactionsAlone() throws {
        var machine = CTAPHIDStateMachine()
        let owner = try Self.allocate(&machine)
        // A request in progress: INIT on the broadcast channel allocates, and cancels nothing (§11.2.5.3
        // aborts only for an INIT on the transaction's own channel).
        _ = machine.reportReceived(Self.report(owner, 0x90, [0x04]), at: .zero)
        let during = machine.reportReceived(Self.broadcastInit, requestInFlight: owner, at: .milliseconds(5))
        #expect(during.count == 1)
        #expect(!during.contains(.cancelRequest(reason: .channelResynchronized)))
        // A message half received: INIT on the broadcast channel in between, then the rest arrives.
        let ping = (0..<70).map { UInt8($0) }
        #expect(
            machine.reportReceived(
                Self.padded(Self.bytes(owner) + [0x81, 0, 70] + ping.prefix(57)), at: .milliseconds(10)
            ).isEmpty)
        #expect(machine.reportReceived(Self.broadcastInit, at: .milliseconds(11)).count == 1)
        let rest = machine.reportReceived(
            Self.padded(Self.bytes(owner) + [0x00] + ping.dropFirst(57)), at: .milliseconds(12))
        #expect(rest == [.send(CTAPHIDMessage(channel: owner, command: .ping, payload: ping))])
    }

    @Test func cancelWhileAnotherChannelHoldsTheLockIsIgnoredNotAnswered() throws {
        var machine = CTAPHIDStateMachine()
        let holder = try Self.allocate(&machine)
        let other = try Self.allocate(&machine)
        #expect(
            Self.written(machine.reportReceived(Self.report(holder, 0x84, [5]), at: .zero)) == [
                Self.report(holder, 0x84, [])
            ])
        // CANCEL is never answered (§11.2.9.1.5), busy or not; a PING is refused busy (§11.2.9.1.4).
        #expect(machine.reportReceived(Self.report(other, 0x91, []), at: .seconds(1)).isEmpty)
        #expect(
            Self.written(machine.reportReceived(Self.report(other, 0x81, []), at: .seconds(1))) == [
                Self.report(other, 0xBF, [0x06])
            ])
    }

    @Test func onlyTheLockOwnerRenewsOrReleasesItAndItsINITReleasesIt() throws {
        var machine = CTAPHIDStateMachine()
        let holder = try Self.allocate(&machine)
        let other = try Self.allocate(&machine)
        _ = machine.reportReceived(Self.report(holder, 0x84, [10]), at: .zero)
        // Another channel can neither release (LOCK 0) nor take the lock.
        #expect(
            Self.written(machine.reportReceived(Self.report(other, 0x84, [0]), at: .seconds(1))) == [
                Self.report(other, 0xBF, [0x06])
            ])
        #expect(
            Self.written(machine.reportReceived(Self.report(other, 0x81, []), at: .seconds(2))) == [
                Self.report(other, 0xBF, [0x06])
            ])
        // INIT on another channel resynchronises that channel only: the lock stays.
        #expect(machine.reportReceived(Self.report(other, 0x86, [1, 2, 3, 4, 5, 6, 7, 8]), at: .seconds(3)).count == 1)
        #expect(
            Self.written(machine.reportReceived(Self.report(other, 0x81, []), at: .seconds(3))) == [
                Self.report(other, 0xBF, [0x06])
            ])
        // INIT on the holder's channel discards its state, the lock included (§11.2.5.3).
        let resync = machine.reportReceived(Self.report(holder, 0x86, [1, 2, 3, 4, 5, 6, 7, 8]), at: .seconds(4))
        #expect(Self.written(resync).first.map { Array($0[0..<7]) } == Self.bytes(holder) + [0x86, 0x00, 0x11])
        #expect(
            Self.written(machine.reportReceived(Self.report(other, 0x81, [9]), at: .seconds(4))) == [
                Self.report(other, 0x81, [9])
            ])
        #expect(machine.nextDeadline == nil)
    }

    @Test func lockIsRefusedWhileAnotherChannelOwnsARequest() throws {
        var machine = CTAPHIDStateMachine()
        let owner = try Self.allocate(&machine)
        let other = try Self.allocate(&machine)
        _ = machine.reportReceived(Self.report(owner, 0x90, [0x04]), at: .zero)
        #expect(
            Self.written(
                machine.reportReceived(Self.report(other, 0x84, [10]), requestInFlight: owner, at: .milliseconds(1)))
                == [Self.report(other, 0xBF, [0x06])])
        #expect(machine.nextDeadline == nil)  // no lock was taken
    }

    @Test func beyondTheMaximumTheLeastRecentlyUsedIdleChannelIsForgotten() throws {
        var configuration = CTAPHIDStateMachine.Configuration()
        configuration.maximumChannels = 3
        var machine = CTAPHIDStateMachine(configuration: configuration, random: SeededRandom(seed: 7))
        let busy = try Self.allocate(&machine)
        let idle = try Self.allocate(&machine)
        let recent = try Self.allocate(&machine)
        _ = machine.reportReceived(Self.report(busy, 0x90, [0x04]), at: .zero)
        let fourth = try Self.allocate(&machine, requestInFlight: busy)
        // `busy` owns a request, so `idle` (used before `recent`) is the one forgotten.
        #expect(
            Self.written(machine.reportReceived(Self.report(idle, 0x91, []), requestInFlight: busy, at: .zero)) == [
                Self.report(idle, 0xBF, [0x0B])
            ])
        #expect(machine.reportReceived(Self.report(recent, 0x91, []), requestInFlight: busy, at: .zero).isEmpty)
        #expect(machine.reportReceived(Self.report(fourth, 0x91, []), requestInFlight: busy, at: .zero).isEmpty)
        // `busy` was kept: its CANCEL still reaches its request.
        #expect(machine.reportReceived(Self.report(busy, 0x91, []), requestInFlight: busy, at: .zero).count == 2)
    }
}
