// Drives the client's and the phone's session state machines back to back in memory: every key and
// nonce is injected, so the run is reproducible; no socket, no Bluetooth, no clock.
import Crypto
import HybridCore

/// Both sessions, and the "network" between them: what each side sends, and the phone's advert.
struct Wire {
    var client: ClientSession
    var phone: AuthenticatorSession
    var toPhone: [[UInt8]] = []
    var toClient: [[UInt8]] = []
    var advert: [UInt8] = []
    var reply: HybridPayload?

    mutating func perform(_ actions: [AuthenticatorSession.Action]) throws {
        for action in actions {
            switch action {
            case .startAdvertising(let serviceData): advert = serviceData
            case .send(let bytes): toClient.append(bytes)
            case .deliverRequest(let request):
                print("phone got \(request)")
                // A real phone runs the CTAP2 request; this one answers CTAP2_OK with an empty map.
                try perform(phone.requestCompleted(.ctap([0x00, 0xA0])))
            case .openTunnel, .stopAdvertising, .finish: break
            }
        }
    }

    mutating func perform(_ actions: [ClientSession.Action]) {
        for action in actions {
            switch action {
            case .send(let bytes): toPhone.append(bytes)
            case .deliverResponse(let payload): reply = payload
            case .connectTunnel, .handshakeCompleted, .updateReceived, .finish: break
            }
        }
    }
}

// The randomness both sides would draw, injected as fixed bytes.
let clientIdentity = try P256.KeyAgreement.PrivateKey(rawRepresentation: [UInt8](repeating: 1, count: 32))
let qrSecret = QRSecret(bytes: [UInt8](repeating: 2, count: QRSecret.byteCount))!
var wire = Wire(
    client: ClientSession(
        configuration: .init(identityKey: clientIdentity, qrSecret: qrSecret),
        ephemeralKey: try .init(rawRepresentation: [UInt8](repeating: 3, count: 32))),
    phone: AuthenticatorSession(
        configuration: .init(
            qrSecret: qrSecret, clientIdentityKey: clientIdentity.publicKey, domainID: .google,
            getInfo: [0xA1, 0x01, 0x81, 0x68] + Array("FIDO_2_0".utf8)),  // {1: ["FIDO_2_0"]}
        advertNonce: AdvertNonce(bytes: [UInt8](repeating: 4, count: AdvertNonce.byteCount))!,
        ephemeralKey: try .init(rawRepresentation: [UInt8](repeating: 5, count: 32))))

// The client queues its CTAP2 request (authenticatorGetInfo); the phone opens its tunnel and
// advertises; the client recognises the advert and opens the same tunnel.
wire.perform(try wire.client.send(.ctap([0x04])))
try wire.perform(wire.phone.start())
try wire.perform(wire.phone.tunnelOpened(routingID: RoutingID(bytes: [1, 2, 3])!))
wire.perform(wire.client.advertReceived(serviceData: wire.advert))
wire.perform(try wire.client.tunnelOpened())
while !wire.toPhone.isEmpty || !wire.toClient.isEmpty {
    if !wire.toPhone.isEmpty { try wire.perform(wire.phone.messageReceived(wire.toPhone.removeFirst())) }
    if !wire.toClient.isEmpty { wire.perform(try wire.client.messageReceived(wire.toClient.removeFirst())) }
}
print("client got \(wire.reply.map { "\($0)" } ?? "nothing"); finished: \(wire.client.isFinished)")
