import Crypto
import Foundation
import HybridClient
import HybridCore
import Testing

@testable import HybridBluetooth

/// The CTAP 2.3 hybrid data channel on the real kernel stack (blevm guest, btvirt, no relay):
/// hci0 plays the phone (listens on a dynamic LE PSM and puts it in the advert suffix), hci1 the
/// client (reads the PSM from the advert, chooses L2CAP, connects). The Noise handshake, the
/// post-handshake message, a request, its response and the shutdown cross an LE credit-based
/// channel through the CRLF framing (protocol.md §3.4, §10.9). The BLE advert itself is handed over
/// in memory here; KernelHCITests proves the advert path over the air.
@Suite(.serialized, .timeLimit(.minutes(5)), .enabled { await KernelBluetoothEnvironment.shouldRun(.l2cap) })
struct KernelL2CAPTests {
    @Test func wholeSessionOverAnLEL2CAPChannel() throws {
        let phoneAddress = try #require(HCIAdapter.address(of: "hci0"))
        let clientAddress = try #require(HCIAdapter.address(of: "hci1"))
        let listener = try L2CAPChannel.Listener(adapter: phoneAddress)
        #expect((0x0080...0x00FF).contains(listener.psm), "a dynamic LE PSM")

        // The phone's advert carries {1: PSM} because the QR code offered channel 1.
        let identity = P256.KeyAgreement.PrivateKey()
        let secret = QRSecret(bytes: (0..<16).map { _ in UInt8.random(in: 0...255) })!
        var configuration = AuthenticatorSession.Configuration(
            qrSecret: secret, clientIdentityKey: identity.publicKey, domainID: .google,
            getInfo: CBOREncoder.encode(.map([1: ["FIDO_2_0", "FIDO_2_1"]])))
        configuration.qrChannels = [.cloudTunnel, .bleL2CAP]
        configuration.l2capPSM = listener.psm
        var phone = AuthenticatorSession(
            configuration: configuration,
            advertNonce: AdvertNonce(bytes: (0..<10).map { _ in UInt8.random(in: 0...255) })!,
            ephemeralKey: .init())
        _ = try phone.start()
        var advert: [UInt8] = []
        for action in try phone.tunnelOpened(routingID: RoutingID(bytes: [1, 2, 3])!) {
            if case .startAdvertising(let serviceData) = action { advert = serviceData }
        }
        var client = ClientSession(
            configuration: .init(identityKey: identity, qrSecret: secret, acceptsAdvertSuffix: true),
            ephemeralKey: .init())
        #expect(!client.advertReceived(serviceData: advert).isEmpty)
        let psm = try #require(client.advertSuffix?.psm)

        let clock = ContinuousClock()
        let started = clock.now
        var selector = DataChannelSelector<ContinuousClock.Instant>(mode: .auto, l2capTimeout: .seconds(30))
        #expect(
            selector.advertMatched(psm: psm, at: started) == [.connectL2CAP(psm: psm, deadline: started + .seconds(30))]
        )

        // accept() blocks: it runs on its own thread while this one connects.
        let acceptance = Acceptance()
        Thread {
            acceptance.finish(Result(catching: { () throws(BluetoothError) -> L2CAPChannel in try listener.accept() }))
        }.start()
        let clientChannel = try L2CAPChannel.connect(from: clientAddress, to: phoneAddress, psm: psm)
        #expect(selector.l2capConnected(at: clock.now) == [.use(.l2cap)])
        let phoneChannel = try acceptance.wait(seconds: 20)?.get()
        let phoneEnd = try #require(phoneChannel)
        let connected = clock.now
        let clientMTU = try clientChannel.sendMTU()
        let phoneMTU = try phoneEnd.sendMTU()
        #expect(clientMTU >= L2CAPFraming.minimumSendMTU && phoneMTU >= L2CAPFraming.minimumSendMTU)

        let request: [UInt8] =
            [0x02] + CBOREncoder.encode(.map([1: "example.com", 2: .bytes([UInt8](repeating: 9, count: 1500))]))
        let response: [UInt8] = [0x00] + CBOREncoder.encode(.map([1: "ok"]))
        _ = try client.send(.ctap(request))
        var clientSide = FramedChannel(channel: clientChannel, sendMTU: clientMTU)
        var phoneSide = FramedChannel(channel: phoneEnd, sendMTU: phoneMTU)
        for action in try client.tunnelOpened() { if case .send(let bytes) = action { try clientSide.send(bytes) } }

        var deliveredRequest: HybridPayload?
        var deliveredResponse: HybridPayload?
        var phoneFinished = false
        for _ in 0..<200 where !(client.isFinished && phoneFinished) {
            if !phoneFinished,
                let message = try phoneSide.receive(
                    expecting: .next(handshakeDone: phone.handshakeHash != nil),
                    accepting: {
                        var trial = phone
                        return (try? trial.messageReceived($0)) != nil
                    })
            {
                for action in try phone.messageReceived(message) {
                    switch action {
                    case .send(let bytes): try phoneSide.send(bytes)
                    case .deliverRequest(let payload):
                        deliveredRequest = payload
                        for reply in try phone.requestCompleted(.ctap(response)) {
                            if case .send(let bytes) = reply { try phoneSide.send(bytes) }
                        }
                    case .finish: phoneFinished = true
                    default: break
                    }
                }
            }
            if !client.isFinished,
                let message = try clientSide.receive(
                    expecting: .next(handshakeDone: client.handshakeHash != nil),
                    accepting: {
                        var trial = client
                        return (try? trial.messageReceived($0)) != nil
                    })
            {
                for action in try client.messageReceived(message) {
                    switch action {
                    case .send(let bytes): try clientSide.send(bytes)
                    case .deliverResponse(let payload): deliveredResponse = payload
                    default: break
                    }
                }
            }
        }
        #expect(deliveredRequest == .ctap(request))
        #expect(deliveredResponse == .ctap(response))
        #expect(client.isFinished && phoneFinished)
        #expect(client.handshakeHash != nil && client.handshakeHash == phone.handshakeHash)
        // msg1 and the shutdown take one SDU each; the 1.5 KB request needs at least three at MTU 672.
        #expect(
            clientSide.largestWrite <= clientMTU && clientSide.writes >= 5, "the request went out in MTU-sized SDUs")
        print(
            "L2CAP send MTU: client \(clientMTU), phone \(phoneMTU); client writes \(clientSide.writes), phone writes \(phoneSide.writes)"
        )
        KernelBluetoothEnvironment.recordTiming(
            "L2CAP connect (scan + LE connection + CoC)", started.duration(to: connected))
        KernelBluetoothEnvironment.recordTiming(
            "L2CAP session (handshake + request + response)", connected.duration(to: clock.now))
    }

    /// The client's kernel-facing half of `--channel auto|l2cap` (HybridClientRunner+DataChannel):
    /// btvirt's controller (LE 5.2) is able, so key 6 is offered; the backend's connect opens the
    /// channel to the advertiser from the advert's address and type; a PSM nobody listens on is
    /// refused (the fallback's trigger); an absent peer gives up at the connect's own limit. Each
    /// failure ends within that limit.
    @Test func theClientsBackendConnectsIsRefusedAndGivesUp() async throws {
        let phoneAddress = try #require(HCIAdapter.address(of: "hci0"))
        let client = BLEBackend.hci(adapter: "hci1")
        let capabilities = await client.l2capCapabilities()
        #expect(capabilities.canUseL2CAP, "btvirt: LE connections and extended advert reception")

        let listener = try L2CAPChannel.Listener(adapter: phoneAddress)
        let advert = BLEAdvertisement(
            address: phoneAddress, addressType: .public, uuid16: BLEServiceUUID.fido, serviceData: [], rssi: nil)
        let acceptance = Acceptance()
        Thread {
            acceptance.finish(Result(catching: { () throws(BluetoothError) -> L2CAPChannel in try listener.accept() }))
        }.start()
        let clock = ContinuousClock()
        var started = clock.now
        let channel = try await client.connectL2CAP(to: advert, psm: listener.psm, timeout: .seconds(10))
        KernelBluetoothEnvironment.recordTiming("client backend L2CAP connect", started.duration(to: clock.now))
        let phoneEnd = try #require(try acceptance.wait(seconds: 10)?.get())
        try channel.write([1, 2, 3])
        #expect(try phoneEnd.read(timeoutMilliseconds: 5000) == [1, 2, 3])
        channel.shutDown()

        // 0x00FF is not listened on (the listener above took the first free dynamic PSM).
        started = clock.now
        let refusal = await #expect(throws: BluetoothError.self) {
            _ = try await client.connectL2CAP(to: advert, psm: 0x00FF, timeout: .seconds(3))
        }
        print("refused L2CAP connect: \(refusal.map { "\($0)" } ?? "none")")
        let refusedAfter = started.duration(to: clock.now)
        KernelBluetoothEnvironment.recordTiming("refused L2CAP connect", refusedAfter)
        // btvirt + kernel 6.1 report this refusal (ECONNREFUSED) only when the connect's own limit
        // ends, ~10 s with a 10 s limit: so the fallback waits for the selector's deadline.
        #expect(refusedAfter < .seconds(4.5), "bounded by the connect's 3 s limit")

        // Nobody advertises from this address: the connect ends at its limit, not the kernel's.
        let absent = BLEAdvertisement(
            address: try #require(BLEAddress(string: "C0:11:22:33:44:55")), addressType: .random,
            uuid16: BLEServiceUUID.fido, serviceData: [], rssi: nil)
        started = clock.now
        await #expect(throws: BluetoothError.self) {
            _ = try await client.connectL2CAP(to: absent, psm: 0x0081, timeout: .seconds(2))
        }
        let waited = started.duration(to: clock.now)
        KernelBluetoothEnvironment.recordTiming("L2CAP connect to an absent peer", waited)
        #expect(waited < .seconds(6), "bounded by the 2 s limit (SO_SNDTIMEO), not the kernel's 20 s+")
    }
}

/// The accepting thread's result, handed over when it is ready.
private final class Acceptance: @unchecked Sendable {
    private var result: Result<L2CAPChannel, BluetoothError>?
    private let done = DispatchSemaphore(value: 0)

    func finish(_ result: Result<L2CAPChannel, BluetoothError>) {
        self.result = result
        done.signal()
    }

    /// Waits for ``finish(_:)``; `nil` if it did not come within `seconds`.
    func wait(seconds: Double) -> Result<L2CAPChannel, BluetoothError>? {
        done.wait(timeout: .now() + seconds) == .success ? result : nil
    }
}

/// One end of the channel: framed writes cut at the send MTU, SDUs read into a deframer.
private struct FramedChannel {
    let channel: L2CAPChannel
    let sendMTU: Int
    var deframer = L2CAPMessageDeframer()
    var writes = 0
    var largestWrite = 0

    mutating func send(_ message: [UInt8]) throws {
        for sdu in try L2CAPFraming.writes(for: message, sendMTU: sendMTU) {
            try channel.write(sdu)
            writes += 1
            largestWrite = max(largestWrite, sdu.count)
        }
    }

    /// The next message `accept` takes, reading SDUs until 20 ms pass with nothing new.
    mutating func receive(expecting shape: L2CAPMessageShape, accepting accept: ([UInt8]) -> Bool) throws -> [UInt8]? {
        while true {
            if let message = try deframer.nextMessage(expecting: shape, accepting: accept) { return message }
            guard let sdu = try channel.read(timeoutMilliseconds: 20), !sdu.isEmpty else { return nil }
            try deframer.append(sdu)
        }
    }
}
