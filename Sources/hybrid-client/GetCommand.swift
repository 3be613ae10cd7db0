import ArgumentParser
import HybridClient

/// `hybrid-client get`: sign in with a passkey on the phone.
struct GetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Sign in with a passkey on the phone (navigator.credentials.get()).",
        discussion: """
            Give PublicKeyCredentialRequestOptionsJSON with --options FILE (or - for stdin), or use the \
            short flags: [--rp-id ID] [--challenge B64URL] [--credential-id B64URL ...] (no credential IDs: \
            a discoverable sign-in).
            """
    )

    @Option(help: "PublicKeyCredentialRequestOptionsJSON file, or - for stdin.")
    var options: String?

    @Option(help: "Short form: the RP ID (default: the origin's host).")
    var rpId: String?

    @Option(help: "Short form: the challenge, base64url (default: 32 random bytes).")
    var challenge: String?

    @Option(help: "Short form: a credential ID to allow, base64url. Repeatable.")
    var credentialId: [String] = []

    @OptionGroup var connection: ConnectionArguments

    func validate() throws {
        if options != nil, rpId != nil || challenge != nil || !credentialId.isEmpty {
            throw ValidationError("use either --options or the short flags (--rp-id, --challenge, --credential-id)")
        }
    }

    func ceremony() throws -> AuthenticationCeremony {
        let origin = try connection.webOrigin()
        return try usageErrors {
            let request: PublicKeyCredentialRequestOptionsJSON
            if let options {
                request = try PublicKeyCredentialRequestOptionsJSON(json: try readOptionsFile(options))
            } else {
                request = .quick(
                    rpID: rpId ?? origin.host.serialization, challenge: try challengeArgument(challenge),
                    allowCredentialIDs: try credentialId.map { try base64URLArgument($0, flag: "--credential-id") })
            }
            return try AuthenticationCeremony(options: request, origin: origin)
        }
    }

    func run() async throws {
        let command = self
        try await connection.runWithinTimeout(parsing: { try command.ceremony() }) { ceremony in
            (.authentication(ceremony), ceremony.options.timeout)
        }
    }
}
