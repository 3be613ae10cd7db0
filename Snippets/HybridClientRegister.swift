// Registers a passkey on a phone over hybrid: `navigator.credentials.create()` as a browser runs it.
import HybridClient
import HybridPresentation

// The site's creation options (here built in code; `PublicKeyCredentialCreationOptionsJSON(json:)`
// reads the JSON a server sends) and the origin the ceremony runs for.
let options = try PublicKeyCredentialCreationOptionsJSON.quick(
    rpID: "example.com", userName: "alice", userID: Array("user-1234".utf8),
    challenge: Array("a challenge from the server".utf8))
let ceremony = try RegistrationCeremony(options: options, origin: WebOrigin("https://example.com"))

// The runner scans for the phone through bluetoothd and shows the QR code when it is ready.
let runner = HybridClientRunner(options: HybridClientOptions(bluetooth: .bluez(adapter: nil)))
let response = try await runner.run(.registration(ceremony)) { event in
    if case .qr(let url) = event, let matrix = try? QRCodeMatrix(encoding: url) {
        print(TerminalQRRenderer().render(matrix))
        print("Scan this QR code with your phone's camera.")
    }
}
// The response as WebAuthn JSON (a `RegistrationResponseJSON`), ready for the server.
print(String(decoding: response.json, as: UTF8.self))
