// Opens the tunnel a phone's advert names (what `HybridClientRunner` does after the QR code): the
// session state machine says where to connect, `TunnelClient` does the WebSocket I/O.
import Crypto
import HybridBluetooth
import HybridCore
import HybridTransport
import Logging

let logger = Logger(label: "tunnel")
// The keys behind the QR code being shown (QRCodePayload(identityKey:secret:…) makes the code).
let qrSecret = QRSecret(bytes: (0..<QRSecret.byteCount).map { _ in UInt8.random(in: .min ... .max) })!
var session = ClientSession(
    configuration: .init(identityKey: P256.KeyAgreement.PrivateKey(), qrSecret: qrSecret), ephemeralKey: .init())

// Scan until an advert decrypts under this QR code's key: the session answers with the tunnel URL.
var tunnel: TunnelURL?
for try await advertisement in try await BLEBackend.bluez(adapter: nil).makeScanner(logger: logger).scan() {
    for case .connectTunnel(let url, _) in session.advertReceived(serviceData: advertisement.serviceData) {
        tunnel = url
    }
    if tunnel != nil { break }
}
guard let tunnel else { fatalError("scanning ended") }

// Open it and send the handshake's first message; the phone's answer goes back into the session.
let firstMessages = try session.tunnelOpened()
let reply = try await TunnelClient(logger: logger).withConnection(to: tunnel) { connection -> [UInt8]? in
    for case .send(let bytes) in firstMessages { try await connection.send(bytes) }
    for try await message in connection.messages { return message }
    return nil
}
print("the phone answered with \(reply?.count ?? 0) bytes")
