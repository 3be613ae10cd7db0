import ArgumentParser

/// `hybrid-client`: create a passkey on, or sign in with, a phone over hybrid (caBLE v2).
@main
struct HybridClientCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hybrid-client",
        abstract: "Create a passkey on, or sign in with, a phone over FIDO hybrid (caBLE v2).",
        discussion: """
            Shows a QR code for the phone to scan, waits for its Bluetooth advert, connects to the tunnel \
            server the advert names, and carries one WebAuthn request. The response JSON \
            (RegistrationResponseJSON / AuthenticationResponseJSON) goes to stdout; progress goes to stderr \
            (JSON lines with --json, the first being {"event": "qr", "url": "FIDO:/…"}). With --window and a \
            display (DISPLAY or WAYLAND_DISPLAY), the QR code also appears in a window whose title names \
            the RP ID; its Cancel button (or Escape) cancels the request.

            Exit status: 0 success, 1 failure (Bluetooth, tunnel, protocol), 2 timed out, \
            3 the phone answered with a CTAP error (no passkey, declined, …) or refused a digital \
            credential, 4 cancelled in the QR window, 64 usage, 130 interrupted. The digital-credential \
            command asks for an identity credential instead (see its --help).
            """,
        subcommands: [
            CreateCommand.self, GetCommand.self, DigitalCredentialCommand.self, ShowQRCommand.self,
            NativeMessagingCommand.self,
        ]
    )
}
