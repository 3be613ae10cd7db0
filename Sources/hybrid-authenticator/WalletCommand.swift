import ArgumentParser
import Foundation
import HybridAuthenticator
import HybridCore
import HybridPresentation
import HybridWallet

/// `hybrid-authenticator wallet key|add|list|delete|present`: the identity wallet in the store.
struct WalletCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wallet",
        abstract: "Manage the identity credentials (SD-JWT VC, mdoc) kept in the encrypted store.",
        subcommands: [
            WalletKeyCommand.self, WalletAddCommand.self, WalletListCommand.self, WalletDeleteCommand.self,
            WalletPresentCommand.self,
        ]
    )

    /// Largest credential or request file read.
    static let inputLimit = 1 << 20

    /// Runs `body` on the opened store; store errors become one message and exit code 1.
    static func withStore<Value>(
        _ options: StoreOptions, _ body: (FilePasskeyStore) async throws -> Value
    ) async throws -> Value {
        do {
            return try await body(try await options.open())
        } catch {
            let reason: StoreAccessError
            switch error {
            case let storeError as PasskeyStoreError: reason = StoreAccessError(path: options.path, error: storeError)
            case let accessError as StoreAccessError: reason = accessError
            default: throw error
            }
            Console.writeError("error: \(reason)\n")
            throw ExitCode.failure
        }
    }

    /// The bytes of `path`, or of standard input for `-`, at most ``inputLimit``.
    static func read(_ path: String) throws -> [UInt8] {
        let data: Data?
        if path == "-" {
            data = try FileHandle.standardInput.read(upToCount: inputLimit + 1)
        } else {
            data = FileManager.default.contents(atPath: path)
        }
        guard let data else { throw ValidationError("cannot read \(path)") }
        guard data.count <= inputLimit else { throw ValidationError("\(path) is larger than 1 MiB") }
        return Array(data)
    }
}

/// `wallet key`: makes the device key on first use and prints its public JWK.
struct WalletKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key",
        abstract: "Make the wallet's device key (once) and print its public JWK, for an issuer to bind credentials to.")

    @OptionGroup var storeOptions: StoreOptions

    func run() async throws {
        let jwk = try await WalletCommand.withStore(storeOptions) { store in
            try await store.changeWallet { (wallet) throws(PasskeyStoreError) in
                if let key = wallet.deviceKey { return (key.publicJWK, false) }
                let key: DeviceKey
                do { key = try DeviceKey.generate(random: RandomSource.system.bytes) } catch {
                    throw .corrupt(reason: "no device key could be made")
                }
                wallet.deviceKey = key
                return (key.publicJWK, true)
            }
        }
        Console.writeJSONOutput(String(decoding: jwk.json.encodedBytes, as: UTF8.self) + "\n")
    }
}

/// `wallet add FILE|-`: an issuer-signed SD-JWT VC (`<JWT>~<disclosures>~`) or an mdoc
/// `IssuerSigned` (CBOR, as bytes, hex or base64url), bound to the wallet's device key.
struct WalletAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add an issuer-signed SD-JWT VC or mdoc IssuerSigned bound to the wallet's device key.")

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The credential file, or - for standard input.")
    var file: String

    func run() async throws {
        let (format, bytes) = try Self.recognise(try WalletCommand.read(file))
        let parsed: ParsedCredential
        do {
            parsed = try WalletCredential(id: "", format: format, bytes: bytes, addedAt: Date()).parsed()
        } catch {
            Console.writeError("error: not a valid \(format.rawValue) credential: \(error)\n")
            throw ExitCode.failure
        }
        let id = Hex.encode(RandomSource.system.bytes(8))
        let added: Bool = try await WalletCommand.withStore(storeOptions) { store in
            try await store.changeWallet { (wallet) throws(PasskeyStoreError) in
                guard let key = wallet.deviceKey, key.publicJWK == parsed.boundKey else { return (false, false) }
                wallet.credentials.insert(
                    WalletCredential(id: id, format: format, bytes: bytes, addedAt: Date()), at: 0)
                return (true, true)
            }
        }
        guard added else {
            Console.writeError(
                "error: the credential is not bound to this wallet's device key ('wallet key' prints the key to issue to)\n"
            )
            throw ExitCode.failure
        }
        Console.writeOutput("Added \(id) (\(format.rawValue), \(TerminalText.printable(parsed.type))).\n")
    }

    /// The format of `input` and the credential's bytes: text with `~` is an SD-JWT; a CBOR map,
    /// or hex or base64url of one, is an mdoc `IssuerSigned`.
    static func recognise(_ input: [UInt8]) throws -> (CredentialFormat, [UInt8]) {
        if let first = input.first, first >> 5 == 5 { return (.mdoc, input) }
        let text = String(decoding: input, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.contains("~") { return (.sdJWTVC, Array(text.utf8)) }
        if let bytes = (try? Hex.decode(text)) ?? Base64URL.decode(text), let first = bytes.first, first >> 5 == 5 {
            return (.mdoc, bytes)
        }
        throw ValidationError("neither an SD-JWT (<JWT>~<disclosures>~) nor an mdoc IssuerSigned (CBOR)")
    }
}

/// `wallet list`: ids, formats, types; claim names with `--claims`, values only with `--values`.
struct WalletListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the wallet's credentials (no claim values unless --values).")

    @Flag(help: "Also list each credential's selectively disclosable claims (names only).")
    var claims = false

    @Flag(help: "Also print the claims' values (implies --claims).")
    var values = false

    @OptionGroup var storeOptions: StoreOptions

    func run() async throws {
        let contents = try await WalletCommand.withStore(storeOptions) { await $0.walletContents() }
        if contents.deviceKey == nil { Console.writeError("No device key yet: 'wallet key' makes one.\n") }
        if contents.credentials.isEmpty { Console.writeError("No credentials.\n") }
        for credential in contents.credentials {
            let added = ISO8601DateFormatter().string(from: credential.addedAt)
            guard let parsed = try? credential.parsed() else {
                Console.writeOutput("\(credential.id)  \(credential.format.rawValue)  (unreadable)  added \(added)\n")
                continue
            }
            Console.writeOutput(
                TerminalText.printable(
                    "\(credential.id)  \(credential.format.rawValue)  \(parsed.type)  added \(added)")
                    + "\n")
            guard claims || values else { continue }
            for (name, value) in Self.claims(parsed) {
                Console.writeOutput(TerminalText.printable("    \(name)" + (values ? " = \(value)" : "")) + "\n")
            }
        }
    }

    /// Each selectively disclosable claim's name and value as text.
    static func claims(_ credential: ParsedCredential) -> [(String, String)] {
        switch credential {
        case .sdJWT(let sdJWT):
            return sdJWT.disclosures.map {
                ($0.name ?? "(array element)", String(decoding: $0.value.encodedBytes, as: UTF8.self))
            }
        case .mdoc(let mdoc):
            return mdoc.elements.map {
                let value = $0.value.jsonValue.map { String(decoding: $0.encodedBytes, as: UTF8.self) } ?? "(CBOR)"
                return ("\($0.namespace)/\($0.identifier)", value)
            }
        }
    }
}

/// `wallet delete ID`.
struct WalletDeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete one credential by its id, as 'wallet list' shows it.")

    @Argument(help: "The credential's id.")
    var id: String

    @OptionGroup var storeOptions: StoreOptions

    func run() async throws {
        let deleted = try await WalletCommand.withStore(storeOptions) { store in
            try await store.changeWallet { (wallet) throws(PasskeyStoreError) in
                let before = wallet.credentials.count
                wallet.credentials.removeAll { $0.id == id }
                return (wallet.credentials.count != before, wallet.credentials.count != before)
            }
        }
        guard deleted else {
            Console.writeError("error: no credential \(TerminalText.printable(id)) in the wallet\n")
            throw ExitCode.failure
        }
        Console.writeOutput("Deleted \(id).\n")
    }
}

/// `wallet present --origin O REQUEST`: answers one `openid4vp-v1-unsigned` request here, as the
/// phone does over hybrid, and prints the response data; for trying a credential out and for tests.
struct WalletPresentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "present",
        abstract: "Answer an openid4vp-v1-unsigned request locally (as over hybrid) and print the response data.")

    @Flag(help: "Share without asking.")
    var yes = false

    @Option(help: "The verifier's origin, e.g. https://example.com.")
    var origin: String

    @Argument(help: "The request's data (JSON), or - for standard input.")
    var request: String

    @OptionGroup var storeOptions: StoreOptions

    func run() async throws {
        let data = try WalletCommand.read(request)
        let store = try await WalletCommand.withStore(storeOptions) { $0 }
        let interaction: any UserInteraction =
            yes ? AutoApproveUserInteraction() : TerminalUserInteraction(verifyPassphrase: nil)
        let provider = WalletProvider(source: store, interaction: interaction)
        let entry = DigitalCredentialRequestEntry(protocolID: OpenID4VPRequest.unsignedProtocolID, data: data)
        switch await provider.present(origin: origin, entries: [entry]) {
        case .credential(_, let response):
            Console.writeJSONOutput(String(decoding: response, as: UTF8.self) + "\n")
        case .refused(let refusal):
            Console.writeError("refused: \(refusal)\n")
            throw ExitCode.failure
        }
    }
}
