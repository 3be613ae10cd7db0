// The phone's side: answers one hybrid ceremony for a scanned QR code with an in-memory passkey
// store, approving every request (a real phone asks its user through a `UserInteraction`).
import HybridAuthenticator
import Logging

let qrCode = CommandLine.arguments.dropFirst().first ?? "FIDO:/..."  // the text the camera read

let authenticator = CTAPAuthenticator(store: InMemoryPasskeyStore(), userInteraction: AutoApproveUserInteraction())
let runner = AuthenticatorRunner(
    options: AuthenticatorRunner.Options(ble: .bluez(adapter: nil)), authenticator: authenticator,
    logger: Logger(label: "phone"))
let summary = try await runner.run(qrCode: qrCode) { event in print(event) }
print(summary.served ? "served the client's request" : "served nothing")
