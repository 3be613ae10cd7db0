import Foundation
import HybridBluetooth
import HybridCore
import HybridTransport
import TestFakePhone
import TestSupport
import Testing

@testable import HybridClient

/// When a run returns, its session holds nothing any more: the L2CAP channel it opened is released
/// (its descriptor closed) and its scanner has stopped and left the air. A daemon that reports the
/// end of a session from that moment (the security key's `closed` event) is then at rest, and the
/// fault proof's long use counts the key's descriptors and threads there.
@Suite(.timeLimit(.minutes(5))) struct SessionReleaseTests {
    @Test func aRunReturnsOnceItsChannelAndScannerAreReleased() async throws {
        for round in 1...10 {
            let air = try LoopbackCeremony.freshAir()
            let (handOut, watched, phoneEnd) = try Self.watchedChannelPair()
            let options = L2CAPCeremonyTests.options(air: air, mode: .l2cap) { _, _, _ in
                guard let channel = handOut.take() else { throw TestFailure("a second L2CAP connect") }
                return channel
            }
            let phone = FakePhone(relay: TunnelServerOrigin(scheme: .ws, host: "127.0.0.1", port: 9), air: air)
            let (qrURLs, qrSink) = AsyncStream<String>.makeStream()
            let served = Task {
                for await url in qrURLs {
                    return try await phone.serveOverL2CAP(qrURL: url, channel: phoneEnd, psm: L2CAPCeremonyTests.psm)
                }
                throw TestFailure("no QR code")
            }
            _ = try await HybridClientRunner(options: options).run(try LoopbackCeremonyTests.registration()) { event in
                if case .qr(let url) = event {
                    qrSink.yield(url)
                    qrSink.finish()
                }
            }
            #expect(watched.object == nil, "round \(round): the client's L2CAP channel is still held")
            #expect(Self.scanners(on: air).isEmpty, "round \(round): a scanner is still on the air")
            _ = try await served.value
        }
    }

    /// A socket pair whose client end only `handOut` holds (the test keeps a weak reference).
    static func watchedChannelPair() throws -> (ChannelSlot, WeakChannel, L2CAPChannel) {
        let (client, phone) = try L2CAPCeremonyTests.channelPair()
        return (ChannelSlot(client), WeakChannel(client), phone)
    }

    /// The scanners registered on `air` (the simulated air's socket files).
    static func scanners(on air: SimulatedAir) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: air.directory)) ?? []
        return names.filter { $0.hasPrefix("scanner-") }
    }
}

/// A channel handed out once.
final class ChannelSlot: Sendable {
    private let slot: LockedValue<L2CAPChannel?>

    init(_ channel: L2CAPChannel) { slot = LockedValue(channel) }

    func take() -> L2CAPChannel? {
        let channel = slot.value
        slot.set(nil)
        return channel
    }
}

/// A weak reference to a channel: `nil` once nobody holds it (its descriptor is then closed).
final class WeakChannel: @unchecked Sendable {
    private let lock = NSLock()
    private weak var stored: L2CAPChannel?

    init(_ channel: L2CAPChannel) { stored = channel }

    var object: L2CAPChannel? { lock.withLock { stored } }
}
