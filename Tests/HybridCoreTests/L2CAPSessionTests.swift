import Crypto
import HybridCore
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The CTAP 2.3 advert suffix through both sessions, and a whole session over a socket pair standing
/// in for the L2CAP socket (protocol.md §3.4, §10.9).
@Suite struct L2CAPSessionTests {
    /// The suffix of the real Android 16 advert in protocol.md §3.4: `{1: 130}`.
    static let androidSuffix: [UInt8] = [0xA1, 0x01, 0x18, 0x82]

    @Test func aPhoneAppendsItsPSMOnlyWhenTheQRAskedForL2CAP() throws {
        for (channels, expectsSuffix) in [
            (nil, false), ([DataTransferChannel.cloudTunnel], false),
            ([.cloudTunnel, .bleL2CAP], true), ([.bleL2CAP], true),
        ] as [([DataTransferChannel]?, Bool)] {
            let advert = try Self.phoneAdvert(channels: channels, psm: 129)
            // {1: 129} = a1 01 18 81 (RFC 8949: uint 129 takes the one-byte form 18 81).
            #expect(advert.count == (expectsSuffix ? 24 : 20))
            if expectsSuffix { #expect(Array(advert.suffix(4)) == [0xA1, 0x01, 0x18, 0x81]) }
        }
        #expect(try Self.phoneAdvert(channels: [.cloudTunnel, .bleL2CAP], psm: nil).count == 20)
    }

    @Test func aClientOfferingL2CAPReadsTheSuffix() throws {
        var pair = SessionPair()
        let advert = try pair.startPhone()
        var client = Self.client(of: pair, acceptsSuffix: true)
        #expect(!client.advertReceived(serviceData: Array(advert.prefix(20)) + Self.androidSuffix).isEmpty)
        #expect(client.advertSuffix?.psm == 130)
        #expect(client.advert != nil)
    }

    @Test func aClientNotOfferingL2CAPIgnoresLongAdverts() throws {
        var pair = SessionPair()
        let advert = try pair.startPhone()
        var client = Self.client(of: pair, acceptsSuffix: false)
        #expect(client.advertReceived(serviceData: Array(advert.prefix(20)) + Self.androidSuffix).isEmpty)
        #expect(!client.advertReceived(serviceData: Array(advert.prefix(20))).isEmpty)
        #expect(client.advertSuffix == nil)
    }

    /// 22 bytes (a suffix cut short) and 24 bytes both reach trial decryption; a suffix that does not
    /// parse leaves the tunnel to be used.
    @Test func twentyTwoAndTwentyFourByteAdvertsReachTrialDecryption() throws {
        var pair = SessionPair()
        let advert = Array(try pair.startPhone().prefix(20))
        var short = Self.client(of: pair, acceptsSuffix: true)
        #expect(!short.advertReceived(serviceData: advert + [0xA1, 0x01]).isEmpty)
        #expect(short.advert != nil && short.advertSuffix == nil)
        var long = Self.client(of: pair, acceptsSuffix: true)
        #expect(!long.advertReceived(serviceData: advert + Self.androidSuffix).isEmpty)
        #expect(long.advertSuffix?.psm == 130)
        var stranger = Self.client(of: SessionPair(), acceptsSuffix: true)
        #expect(stranger.advertReceived(serviceData: advert + Self.androidSuffix).isEmpty)
    }

    /// Both ends over an `AF_UNIX` `SOCK_SEQPACKET` pair (which keeps write boundaries, as L2CAP SDUs
    /// do), writes cut at the smallest LE MTU, reads of any size: Noise handshake, post-handshake
    /// message, request, response and shutdown all pass through the CRLF framing.
    @Test func aWholeSessionOverASocketPair() throws {
        var fds: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &fds) == 0)
        defer {
            close(fds[0])
            close(fds[1])
        }
        var clientEnd = FramedSocket(fd: fds[0], sendMTU: L2CAPFraming.minimumSendMTU)
        var phoneEnd = FramedSocket(fd: fds[1], sendMTU: 48)

        var pair = SessionPair()
        let advert = try pair.startPhone(
            channels: [.cloudTunnel, .bleL2CAP], psm: 0x0085,
            getInfo: CBOREncoder.encode(.map([1: ["FIDO_2_0", "FIDO_2_1"]])))
        var client = Self.client(of: pair, acceptsSuffix: true)
        var phone = pair.phone
        #expect(!client.advertReceived(serviceData: advert).isEmpty)
        #expect(client.advertSuffix?.psm == 0x0085)

        let request: [UInt8] =
            [0x02] + CBOREncoder.encode(.map([1: "example.com", 2: .bytes([UInt8](repeating: 9, count: 32))]))
        _ = try client.send(.ctap(request))
        for action in try client.tunnelOpened() { if case .send(let bytes) = action { try clientEnd.send(bytes) } }

        var deliveredRequest: HybridPayload?
        var deliveredResponse: HybridPayload?
        var phoneFinished = false
        var rounds = 0
        while !(client.isFinished && phoneFinished), rounds < 20 {
            rounds += 1
            if let message = try phoneEnd.receive(
                expecting: .next(handshakeDone: phone.handshakeHash != nil),
                accepting: {
                    var trial = phone
                    return (try? trial.messageReceived($0)) != nil
                })
            {
                for action in try phone.messageReceived(message) {
                    switch action {
                    case .send(let bytes): try phoneEnd.send(bytes)
                    case .deliverRequest(let payload):
                        deliveredRequest = payload
                        for reply in try phone.requestCompleted(.ctap([0x00] + CBOREncoder.encode(.map([1: "ok"])))) {
                            if case .send(let bytes) = reply { try phoneEnd.send(bytes) }
                        }
                    case .finish: phoneFinished = true
                    default: break
                    }
                }
            }
            if !client.isFinished,
                let message = try clientEnd.receive(
                    expecting: .next(handshakeDone: client.handshakeHash != nil),
                    accepting: {
                        var trial = client
                        return (try? trial.messageReceived($0)) != nil
                    })
            {
                for action in try client.messageReceived(message) {
                    switch action {
                    case .send(let bytes): try clientEnd.send(bytes)
                    case .deliverResponse(let payload): deliveredResponse = payload
                    default: break
                    }
                }
            }
        }
        #expect(deliveredRequest == .ctap(request))
        #expect(deliveredResponse == .ctap([0x00] + CBOREncoder.encode(.map([1: "ok"]))))
        #expect(client.isFinished && phoneFinished)
        #expect(client.handshakeHash != nil && client.handshakeHash == phone.handshakeHash)
        #expect(clientEnd.writeSizes.max() == L2CAPFraming.minimumSendMTU && phoneEnd.writeSizes.max()! <= 48)
    }

    private static func phoneAdvert(channels: [DataTransferChannel]?, psm: UInt16?) throws -> [UInt8] {
        var pair = SessionPair()
        return try pair.startPhone(channels: channels, psm: psm)
    }

    private static func client(of pair: SessionPair, acceptsSuffix: Bool) -> ClientSession {
        ClientSession(
            configuration: .init(
                identityKey: pair.clientIdentity, qrSecret: pair.qrSecret, acceptsAdvertSuffix: acceptsSuffix),
            ephemeralKey: .init())
    }
}

extension SessionPair {
    /// Rebuilds the phone with these QR channels and PSM, runs it to advertising, returns the advert.
    mutating func startPhone(
        channels: [DataTransferChannel]? = nil, psm: UInt16? = nil, getInfo: [UInt8] = [0xA0]
    ) throws -> [UInt8] {
        var configuration = AuthenticatorSession.Configuration(
            qrSecret: qrSecret, clientIdentityKey: clientIdentity.publicKey, domainID: .google, getInfo: getInfo)
        configuration.qrChannels = channels
        configuration.l2capPSM = psm
        phone = AuthenticatorSession(
            configuration: configuration, advertNonce: AdvertNonce(bytes: [UInt8](repeating: 3, count: 10))!,
            ephemeralKey: .init())
        for action in try phone.start() { try perform(action) }
        for action in try phone.tunnelOpened(routingID: RoutingID(bytes: [1, 2, 3])!) { try perform(action) }
        return advertisedServiceData
    }
}

/// One end of the socket pair: framed writes cut at `sendMTU`, reads into a deframer.
private struct FramedSocket {
    let fd: Int32
    let sendMTU: Int
    var deframer = L2CAPMessageDeframer()
    var writeSizes: [Int] = []

    mutating func send(_ message: [UInt8]) throws {
        for write in try L2CAPFraming.writes(for: message, sendMTU: sendMTU) {
            let sent = write.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
            #expect(sent == write.count)
            writeSizes.append(write.count)
        }
    }

    /// The next message `accept` takes, reading without blocking until none is left to read.
    mutating func receive(expecting shape: L2CAPMessageShape, accepting accept: ([UInt8]) -> Bool) throws -> [UInt8]? {
        while true {
            if let message = try deframer.nextMessage(expecting: shape, accepting: accept) { return message }
            var buffer = [UInt8](repeating: 0, count: 512)
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            guard count > 0 else { return nil }
            try deframer.append(buffer[..<count])
        }
    }
}
