import ArgumentParser
import HybridClient

/// `hybrid-client create`: register a passkey on the phone.
struct CreateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create a passkey on the phone (navigator.credentials.create()).",
        discussion: """
            Give PublicKeyCredentialCreationOptionsJSON with --options FILE (or - for stdin), or use the \
            short flags: --user NAME [--rp-id ID] [--challenge B64URL] (random challenge and user ID).
            """
    )

    @Option(help: "PublicKeyCredentialCreationOptionsJSON file, or - for stdin.")
    var options: String?

    @Option(help: "Short form: the RP ID (default: the origin's host).")
    var rpId: String?

    @Option(help: "Short form: the user name (also the display name).")
    var user: String?

    @Option(help: "Short form: the challenge, base64url (default: 32 random bytes).")
    var challenge: String?

    @OptionGroup var connection: ConnectionArguments

    func validate() throws {
        if options != nil {
            guard rpId == nil, user == nil, challenge == nil else {
                throw ValidationError("use either --options or the short flags (--rp-id, --user, --challenge)")
            }
        } else if user == nil {
            throw ValidationError("give --options FILE, or --user NAME for a quick registration")
        }
    }

    func ceremony() throws -> RegistrationCeremony {
        let origin = try connection.webOrigin()
        return try usageErrors {
            let creation: PublicKeyCredentialCreationOptionsJSON
            if let options {
                creation = try PublicKeyCredentialCreationOptionsJSON(json: try readOptionsFile(options))
            } else {
                creation = try .quick(
                    rpID: rpId ?? origin.host.serialization, userName: user ?? "", userID: randomBytes(16),
                    challenge: try challengeArgument(challenge))
            }
            return try RegistrationCeremony(options: creation, origin: origin)
        }
    }

    func run() async throws {
        let command = self
        try await connection.runWithinTimeout(parsing: { try command.ceremony() }) { ceremony in
            (.registration(ceremony), ceremony.options.timeout)
        }
    }
}
