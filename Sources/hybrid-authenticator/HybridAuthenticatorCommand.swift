import ArgumentParser

/// `hybrid-authenticator`: this machine as the phone of a FIDO hybrid (caBLE v2) session.
@main
struct HybridAuthenticatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hybrid-authenticator",
        abstract:
            "Act as a FIDO hybrid (caBLE v2) authenticator: answer a client's QR code with this machine's passkeys.",
        usage: """
            hybrid-authenticator [serve] [- | --qr-image FILE | 'FIDO:/...'] [--tunnel-url URL] [--domain-id N]
                          [--ble sim|hci|bluez] [--adapter hciN] [--yes] [--json] [--store PATH]
                          [--insecure-plaintext-store | --passphrase-fd N]
                          [--ca-file F] [--connect-timeout S] [--client-timeout S] [--timeout S]
                          [--max-qr-age S] [--accept-qr-without-timestamp] [--log-level LEVEL | --verbose]
            hybrid-authenticator credentials list [--store PATH] [--json]
            hybrid-authenticator credentials delete <credential-id> [--store PATH] [--insecure-plaintext-store]
            hybrid-authenticator credentials export [--output FILE] [--force-terminal] [--store PATH] [...]
            hybrid-authenticator credentials import FILE [--replace] [--store PATH] [...]
            """,
        discussion: """
            Give it the FIDO:/ text of the QR code a browser (or hybrid-client) shows on standard input \
            (argument '-' or none), or --qr-image FILE to read it from a PNG or JPEG screenshot of the code \
            (decoded with zbar). The text as the argument still works, but every local user sees it with ps \
            while the session runs. It opens a tunnel on the tunnel server of --domain-id \
            (default 0, cable.ua5v.com; 1 is cable.auth.com; 256-65535 are hashed domains), or on the relay \
            of --tunnel-url, advertises the encrypted EID over Bluetooth LE (service 0xFFF9) until the client \
            connects, completes the Noise handshake, sends its getInfo, and answers the client's CTAP2 request \
            (makeCredential or getAssertion) from its passkey store, asking the user on the terminal \
            ("Sign in to example.com as alice? [y/N]"; --yes approves everything, for tests and demos only). \
            One QR code serves one request: a second one closes the tunnel, and a silent getAssertion (up \
            false) is refused with CTAP2_ERR_UNSUPPORTED_OPTION. Advertising is always \
            switched off at the end, also on errors and Ctrl-C (a second Ctrl-C exits at once).

            The QR code is refused when malformed, when its timestamp is more than --max-qr-age seconds \
            from now or missing (unless --accept-qr-without-timestamp), or when --domain-id is an assigned ID the client does not know (QR key 2).

            Passkey store: encrypted with a passphrase from --passphrase-fd N (first line), \
            $HYBRID_AUTHENTICATOR_PASSPHRASE (removed from the environment once read) or a no-echo prompt; user verification asks for that passphrase (with --yes, unlocking the store counts \
            as verification). A plaintext store (--insecure-plaintext-store) cannot verify users: getInfo \
            then says uv false, and requests asking for user verification get CTAP2_ERR_INVALID_OPTION. \
            Manage it with 'hybrid-authenticator credentials list' and 'hybrid-authenticator credentials delete <id>'.

            --json: every event is one JSON object per line on standard output with an "event" member: \
            waitingForTunnel, tunnelOpened, advertising ({"event":"advertising","uuid":"fff9",\
            "serviceData":"<40 hex digits>"}), advertisingStopped, connected, handshakeDone, request, \
            approved or denied (with the CTAP status), and finally done ({"event":"done","served":...}) \
            or error ({"event":"error","message":...}). A JSON (digital credential) request is refused \
            by closing the tunnel normally.

            Exit status: 0 when a CTAP request was served with status OK, 3 when the session ended but \
            no request succeeded (e.g. the user declined), 1 on errors, 64 on bad arguments, 130 on a \
            second Ctrl-C. Every serving option is described by 'hybrid-authenticator serve --help'.
            """,
        subcommands: [ServeCommand.self, CredentialsCommand.self, WalletCommand.self],
        defaultSubcommand: ServeCommand.self
    )
}
