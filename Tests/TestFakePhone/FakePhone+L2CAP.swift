import Crypto
import HybridBluetooth
import HybridCore
import TestSupport

extension FakePhone {
    /// Serves one session for `qrURL` over `channel`, the phone's end of a BLE L2CAP channel (CTAP
    /// 2.3, protocol.md §3.4, §10.9), with no tunnel: advertises `{1: psm}` after the encrypted
    /// advert when the QR code asked for L2CAP, then answers on the channel until the shutdown.
    package func serveOverL2CAP(qrURL: String, channel: L2CAPChannel, psm: UInt16) async throws -> Record {
        let qr = try QRCodePayload(url: qrURL)
        guard let nonce = AdvertNonce(bytes: randomBytes(10)), let routingID = RoutingID(bytes: [1, 2, 3]) else {
            throw TestFailure("nonce")
        }
        var configuration = AuthenticatorSession.Configuration(
            qrSecret: qr.secret, clientIdentityKey: qr.identityKey, domainID: .google, getInfo: engine.getInfo.encoded)
        configuration.qrChannels = qr.channels
        configuration.l2capPSM = psm
        var session = AuthenticatorSession(
            configuration: configuration, advertNonce: nonce, ephemeralKey: P256.KeyAgreement.PrivateKey())
        _ = try session.start()
        var record = Record(qrChannels: qr.channels)
        for case .startAdvertising(let serviceData) in try session.tunnelOpened(routingID: routingID) {
            record.advert = serviceData
        }
        let advertiser = BLEBackend.simulated(air).makeAdvertiser(logger: logger)
        try await advertiser.startAdvertising(BLEServiceDataAdvert(serviceData: record.advert))
        defer { channel.shutDown() }
        var stream = try L2CAPMessageStream(channel: channel)
        while !session.isFinished {
            let snapshot = session
            guard
                let message = try await stream.receive(
                    expecting: .next(handshakeDone: session.handshakeHash != nil),
                    accepting: {
                        var trial = snapshot
                        return (try? trial.messageReceived($0)) != nil
                    })
            else { break }
            record.messagesReceived += 1
            var pending = try session.messageReceived(message)
            while !pending.isEmpty {
                switch pending.removeFirst() {
                case .send(let bytes): try await stream.send(bytes)
                case .stopAdvertising: await advertiser.stopAdvertising()
                case .deliverRequest(let request):
                    let outcome = await engine.process(request.bytes)
                    record.ctapResponse = outcome.response
                    pending += try session.requestCompleted(.ctap(outcome.response))
                default: break
                }
            }
        }
        await advertiser.stopAdvertising()
        record.shutdownReceived = session.isFinished
        return record
    }
}
