import Crypto
import Foundation
import HybridAuthenticator
import HybridBluetooth
import HybridCore
import HybridTransport
import TestFakePhone
import TestLoopbackRelay
import TestManualClock
import TestSupport
import Testing

@testable import HybridClient

#if canImport(Glibc)
    import Glibc
#endif

/// `--channel auto|tunnel|l2cap` in the client runner (CTAP 2.3, protocol.md §3.4, §10.9): a whole
/// ceremony over an L2CAP channel with no relay at all (a `SOCK_SEQPACKET` socket pair stands in
/// for the LE CoC socket; KernelL2CAPTests proves the kernel's), and the fallback to the tunnel.
@Suite(.timeLimit(.minutes(5))) struct L2CAPCeremonyTests {
    static let psm: UInt16 = 0x0085
    static let able = BluetoothCapabilities(leConnections: true, extendedAdvertisingReception: true)

    /// The two ends of a channel: the client's (MTU 23, the LE minimum) and the phone's.
    static func channelPair() throws -> (client: L2CAPChannel, phone: L2CAPChannel) {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &fds) == 0 else { throw TestFailure("socketpair") }
        return (
            L2CAPChannel.adopting(descriptor: fds[0], sendMTU: L2CAPFraming.minimumSendMTU),
            L2CAPChannel.adopting(descriptor: fds[1], sendMTU: 64)
        )
    }

    static func options(
        air: SimulatedAir, relay: TunnelServerOrigin? = nil, mode: DataChannelMode,
        capabilities: BluetoothCapabilities = able,
        connect: @escaping @Sendable (BLEAdvertisement, UInt16, Duration) async throws -> L2CAPChannel
    ) -> HybridClientOptions {
        var options = HybridClientOptions(
            bluetooth: .simulated(air), timeout: .seconds(30),
            tunnelServers: relay.map { [.google: $0] } ?? [:])
        options.channel = mode
        options.l2capOverride = L2CAPClientSupport(capabilities: { capabilities }, connect: connect)
        return options
    }

    @Test(arguments: [DataChannelMode.auto, .l2cap])
    func aCeremonyRunsOverTheL2CAPChannelWithNoRelay(mode: DataChannelMode) async throws {
        let air = try LoopbackCeremony.freshAir()
        let (clientEnd, phoneEnd) = try Self.channelPair()
        let asked = LockedValue<(BLEAdvertisement, UInt16)?>(nil)
        // No relay runs: no tunnel server is set, so any tunnel attempt would fail.
        let options = Self.options(air: air, mode: mode) { advert, psm, _ in
            asked.set((advert, psm))
            return clientEnd
        }
        let phone = FakePhone(relay: TunnelServerOrigin(scheme: .ws, host: "127.0.0.1", port: 9), air: air)
        let outcome = try await LoopbackCeremony.run(
            try LoopbackCeremonyTests.registration(), options: options,
            phone: { url in try await phone.serveOverL2CAP(qrURL: url, channel: phoneEnd, psm: Self.psm) })

        guard case .registration(let response) = try outcome.response() else { throw TestFailure("not a registration") }
        #expect(response.type == "public-key")
        let record = try #require(try outcome.authenticator?.get())
        #expect(record.qrChannels == [.cloudTunnel, .bleL2CAP], "QR key 6 = [0, 1]")
        // {1: 0x85} = a1 01 18 85 after the 20 encrypted bytes.
        #expect(record.advert.count == 24 && Array(record.advert.suffix(4)) == [0xA1, 0x01, 0x18, 0x85])
        #expect(asked.value?.1 == Self.psm, "the PSM from the advert suffix")
        #expect(record.shutdownReceived)
        #expect(outcome.events.contains(.connectingL2CAP(psm: Self.psm)))
        #expect(outcome.events.contains(.channel(.l2cap)))
        #expect(!outcome.events.contains { if case .connecting = $0 { true } else { false } })
    }

    /// A registration against a phone that advertises a PSM but refuses the connection (as the
    /// kernel does when nobody listens on it), served over the tunnel.
    static func runWithRefusedL2CAP(mode: DataChannelMode) async throws -> LoopbackCeremony.Outcome {
        let air = try LoopbackCeremony.freshAir()
        return try await LoopbackRelay.with { relay in
            let options = Self.options(air: air, relay: relay, mode: mode) { _, _, _ in
                throw BluetoothError.systemCallFailed(operation: "connect L2CAP", errno: ECONNREFUSED)
            }
            var phone = FakePhone(relay: relay, air: air)
            phone.l2capPSM = Self.psm
            return try await LoopbackCeremony.run(
                try LoopbackCeremonyTests.registration(), options: options, authenticator: phone)
        }
    }

    @Test func autoFallsBackToTheTunnelWhenTheL2CAPConnectionFails() async throws {
        let outcome = try await Self.runWithRefusedL2CAP(mode: .auto)
        guard case .registration = try outcome.response() else { throw TestFailure("not a registration") }
        #expect(try outcome.authenticator?.get().advert.count == 24)
        let l2cap = try #require(outcome.events.firstIndex(of: .connectingL2CAP(psm: Self.psm)))
        let tunnel = try #require(outcome.events.firstIndex(of: .channel(.tunnel)))
        #expect(l2cap < tunnel)
        #expect(!outcome.events.contains(.channel(.l2cap)))
        // Why, before the fallback: the kernel's own words for the refusal.
        let why = try #require(
            outcome.events.firstIndex(of: .l2capUnavailable(.connectFailed("connect L2CAP: Connection refused"))),
            "\(outcome.events)")
        #expect(l2cap < why && why < tunnel)
    }

    @Test func autoFallsBackToTheTunnelWhenTheL2CAPDeadlinePasses() async throws {
        let air = try LoopbackCeremony.freshAir()
        let clock = ManualClock()
        let outcome = try await LoopbackRelay.with { relay in
            var options = Self.options(air: air, relay: relay, mode: .auto) { _, _, _ in
                // A phone whose PSM never answers: waits until the runner gives up on it.
                let (never, keep) = AsyncStream<Never>.makeStream()
                for await _ in never {}
                keep.finish()
                throw CancellationError()
            }
            options.clock = clock
            var phone = FakePhone(relay: relay, air: air)
            phone.l2capPSM = Self.psm
            return try await LoopbackCeremony.run(
                try LoopbackCeremonyTests.registration(), options: options, authenticator: phone
            ) { event in
                // The overall timeout and the L2CAP deadline both sleep on the clock: then move it on.
                if event == .connectingL2CAP(psm: Self.psm) {
                    Task {
                        await clock.sleeperArrived(count: 2)
                        clock.advance(by: HybridClientOptions.defaultL2CAPTimeout)
                    }
                }
            }
        }
        guard case .registration = try outcome.response() else { throw TestFailure("not a registration") }
        #expect(outcome.events.contains(.channel(.tunnel)) && !outcome.events.contains(.channel(.l2cap)))
        #expect(
            outcome.events.contains(.l2capUnavailable(.timedOut(limit: HybridClientOptions.defaultL2CAPTimeout))),
            "\(outcome.events)")
    }

    /// What a stranger does on the channel the client opened to it: the advert's PSM suffix is not
    /// covered by its tag (§3.4), so anyone can re-broadcast the phone's advert with a PSM of its own.
    enum Stranger: String, CaseIterable, Sendable {
        /// Closes the channel at once.
        case closes
        /// Sends 81 bytes that are no msg2, and CRLF, then closes.
        case answersGarbage
        /// Sends a valid P-256 point, then CRLF pairs, and keeps the channel open.
        case floods

        /// Does it on `channel`, the stranger's end; returns it if it is to stay open.
        func act(on channel: L2CAPChannel) throws -> L2CAPChannel? {
            switch self {
            case .closes:
                channel.shutDown()
                return nil
            case .answersGarbage:
                try channel.write([UInt8](repeating: 0x04, count: 81) + [0x0D, 0x0A])
                channel.shutDown()
                return nil
            case .floods:
                let point = Array(P256.KeyAgreement.PrivateKey().publicKey.x963Representation)
                try channel.write(point + Array(repeating: [UInt8]([0x0D, 0x0A]), count: 200).joined())
                return channel
            }
        }
    }

    /// The L2CAP channel opens, to a stranger, and fails before the handshake completes: under
    /// `auto` the client then registers over the tunnel (nothing was revealed yet; the phone waits
    /// there too).
    @Test(arguments: Stranger.allCases)
    func autoFallsBackToTheTunnelWhenTheL2CAPChannelFailsBeforeTheHandshake(stranger: Stranger) async throws {
        let air = try LoopbackCeremony.freshAir()
        let kept = LockedValue<L2CAPChannel?>(nil)
        let outcome = try await LoopbackRelay.with { relay in
            let options = Self.options(air: air, relay: relay, mode: .auto) { _, _, _ in
                let (clientEnd, strangerEnd) = try Self.channelPair()
                kept.set(try stranger.act(on: strangerEnd))
                return clientEnd
            }
            var phone = FakePhone(relay: relay, air: air)
            phone.l2capPSM = Self.psm
            return try await LoopbackCeremony.run(
                try LoopbackCeremonyTests.registration(), options: options, authenticator: phone)
        }
        guard case .registration = try outcome.response() else { throw TestFailure("not a registration") }
        #expect(try outcome.authenticator?.get().shutdownReceived == true)
        let l2cap = try #require(outcome.events.firstIndex(of: .channel(.l2cap)))
        let tunnel = try #require(outcome.events.firstIndex(of: .channel(.tunnel)))
        #expect(l2cap < tunnel)
        withExtendedLifetime(kept) {}
    }

    /// A stranger that accepts the channel and never says a word: the client waits for the first
    /// handshake message only so long (on the injected clock), then drops the channel and
    /// registers over the tunnel, well before the ceremony's own timeout.
    @Test(.timeLimit(.minutes(1)))
    func autoFallsBackToTheTunnelWhenTheL2CAPPeerStaysSilent() async throws {
        let air = try LoopbackCeremony.freshAir()
        let clock = ManualClock()
        let kept = LockedValue<L2CAPChannel?>(nil)
        let outcome = try await LoopbackRelay.with { relay in
            var options = Self.options(air: air, relay: relay, mode: .auto) { _, _, _ in
                let (clientEnd, strangerEnd) = try Self.channelPair()
                kept.set(strangerEnd)  // open, silent
                return clientEnd
            }
            options.clock = clock
            var phone = FakePhone(relay: relay, air: air)
            phone.l2capPSM = Self.psm
            return try await LoopbackCeremony.run(
                try LoopbackCeremonyTests.registration(), options: options, authenticator: phone
            ) { event in
                // The overall timeout and the wait for the stranger's first message sleep on the
                // clock: then move it past the second (the first is 30 s away).
                if event == .channel(.l2cap) {
                    Task {
                        await clock.sleeperArrived(count: 2)
                        clock.advance(by: HybridClientOptions.defaultL2CAPTimeout)
                    }
                }
            }
        }
        guard case .registration = try outcome.response() else { throw TestFailure("not a registration") }
        let l2cap = try #require(outcome.events.firstIndex(of: .channel(.l2cap)))
        let tunnel = try #require(outcome.events.firstIndex(of: .channel(.tunnel)))
        #expect(l2cap < tunnel)
        let why = try #require(
            outcome.events.firstIndex(
                of: .l2capUnavailable(.noHandshake(limit: HybridClientOptions.defaultL2CAPTimeout))),
            "\(outcome.events)")
        #expect(l2cap < why && why < tunnel)
        withExtendedLifetime(kept) {}
    }

    @Test func l2capModeDoesNotFallBack() async throws {
        let outcome = try await Self.runWithRefusedL2CAP(mode: .l2cap)
        #expect(outcome.clientError == .dataChannel(.l2capUnavailable))
        #expect(!outcome.events.contains(.channel(.tunnel)))
        #expect(outcome.events.contains(.l2capUnavailable(.connectFailed("connect L2CAP: Connection refused"))))
    }

    /// Key 6 only with an able adapter (Play Services before CTAP 2.3 rejects an array, §1.3): an
    /// adapter without extended advert reception gets no key 6 under `auto` and a clear error under
    /// `l2cap`; `tunnel` never sends it.
    @Test func keySixOnlyWhenTheAdapterCan() async throws {
        let unable = BluetoothCapabilities(leConnections: true, extendedAdvertisingReception: false)
        let air = try LoopbackCeremony.freshAir()
        let never: @Sendable (BLEAdvertisement, UInt16, Duration) async throws -> L2CAPChannel = { _, _, _ in
            throw TestFailure("no L2CAP attempt expected")
        }
        for (mode, capabilities, reasons) in [
            (DataChannelMode.auto, unable, [HybridClientEvent.l2capUnavailable(.noExtendedAdvertReception)]),
            (.tunnel, Self.able, []),
        ] {
            let runner = HybridClientRunner(
                options: Self.options(air: air, mode: mode, capabilities: capabilities, connect: never))
            var emitted: [HybridClientEvent] = []
            #expect(try await runner.offeredChannels { emitted.append($0) } == nil)
            #expect(emitted == reasons, "\(mode)")
        }
        let strict = HybridClientRunner(
            options: Self.options(air: air, mode: .l2cap, capabilities: unable, connect: never))
        await #expect(throws: HybridClientError.dataChannel(.adapterCannotOfferL2CAP(.noExtendedAdvertReception))) {
            try await strict.offeredChannels { _ in }
        }
        let outcome = try await LoopbackRelay.with { relay in
            var phone = FakePhone(relay: relay, air: air)
            phone.l2capPSM = Self.psm
            return try await LoopbackCeremony.run(
                try LoopbackCeremonyTests.registration(),
                options: Self.options(air: air, relay: relay, mode: .auto, capabilities: unable, connect: never),
                authenticator: phone)
        }
        _ = try outcome.response()
        #expect(try outcome.authenticator?.get().qrChannels == nil)
        #expect(try outcome.authenticator?.get().advert.count == 20, "no suffix the QR code did not ask for")
        #expect(!outcome.events.contains(.connectingL2CAP(psm: Self.psm)))
        // Said right after the QR code, once; the phone's advert without a PSM adds nothing.
        #expect(outcome.events.filter { if case .l2capUnavailable = $0 { true } else { false } }.count == 1)
        #expect(outcome.events.dropFirst().first == .l2capUnavailable(.noExtendedAdvertReception), "\(outcome.events)")
    }
}

/// A value set from any task.
final class LockedValue<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    func set(_ value: Value) { lock.withLock { stored = value } }
    var value: Value { lock.withLock { stored } }
}
