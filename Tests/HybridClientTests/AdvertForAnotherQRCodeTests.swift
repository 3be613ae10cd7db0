import HybridBluetooth
import HybridCore
import Logging
import TestFakePhone
import TestLoopbackRelay
import TestSupport
import Testing

@testable import HybridClient

/// A phone that answers another QR code (an older one, or another computer's) is named in the
/// client's events, so that a timeout that follows does not read as "no phone advertised".
@Suite struct AdvertForAnotherQRCodeTests {
    /// The FIDO advert of a phone that scanned a QR code with another secret (fixed bytes: its
    /// tag cannot verify under the client's fresh secret).
    static func strangersAdvert() throws -> BLEServiceDataAdvert {
        guard let secret = QRSecret(bytes: [UInt8](repeating: 0x5A, count: QRSecret.byteCount)),
            let nonce = AdvertNonce(bytes: [UInt8](repeating: 0x11, count: 10)),
            let routingID = RoutingID(bytes: [0x00, 0x12, 0x34])
        else { throw TestFailure("fixed advert inputs") }
        let plaintext = AdvertPlaintext(nonce: nonce, routingID: routingID, domainID: .google)
        return BLEServiceDataAdvert(serviceData: secret.eidKey.encrypt(plaintext))
    }

    /// The stranger's advert is on the air before the right phone starts: one datagram socket
    /// queues in order, so the client reads it first. The ceremony still completes, and the
    /// events say, once and before the phone is found, that another QR code's phone was heard.
    @Test func anotherQRCodesAdvertIsNamedOnceAndTheRightPhoneStillAnswers() async throws {
        let air = try LoopbackCeremony.freshAir()
        let stranger = SimulatedAirAdvertiser(air: air, logger: Logger(label: "stranger"))
        let advert = try Self.strangersAdvert()
        let outcome = try await LoopbackRelay.with { relay in
            let phone = FakePhone(relay: relay, air: air)
            return try await LoopbackCeremony.run(
                try LoopbackCeremonyTests.registration(),
                options: LoopbackCeremonyTests.options(relay: relay, air: air),
                phone: { qrURL in
                    // Returns once the advert was sent to every scanner, the client's included.
                    try await stranger.startAdvertising(advert)
                    let record: FakePhone.Record
                    do {
                        record = try await phone.serve(qrURL: qrURL)
                    } catch {
                        await stranger.stopAdvertising()
                        throw error
                    }
                    await stranger.stopAdvertising()
                    return record
                })
        }
        guard case .registration = try outcome.response() else { throw TestFailure("not a registration") }
        let named = outcome.events.indices.filter { outcome.events[$0] == .advertForAnotherQRCode }
        let found = outcome.events.firstIndex { if case .connecting = $0 { true } else { false } }
        #expect(named.count == 1, "events: \(outcome.events)")
        #expect(named.first.map { index in found.map { index < $0 } ?? false } == true)
        #expect(HybridClientEvent.advertForAnotherQRCode.stage == .waitingForDevice)
    }
}
