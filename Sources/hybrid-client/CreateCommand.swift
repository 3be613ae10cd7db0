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
        let creation: PublicKeyCredentialCreationOptionsJSON
        do {
            if let options {
                creation = try PublicKeyCredentialCreationOptionsJSON(json: try readOptionsFile(options))
            } else {
                creation = try .quick(
                    rpID: rpId ?? origin.host.serialization,
                    userName: user ?? "",
                    userID: randomBytes(16),
                    challenge: try challenge.map { try base64URLArgument($0, flag: "--challenge") } ?? randomBytes(32)
                )
            }
            return try RegistrationCeremony(options: creation, origin: origin)
        } catch let error as ValidationError {
            throw error
        } catch {
            throw ValidationError("\(error)")
        }
    }

    func run() async throws {
        let ceremony = try ceremony()
        let options = try await connection.runnerOptions(optionsTimeout: ceremony.options.timeout)
        try await CeremonyExecution(arguments: connection, options: options).run(.registration(ceremony))
    }
}
