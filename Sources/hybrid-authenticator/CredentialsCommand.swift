import ArgumentParser
import Foundation
import HybridAuthenticator
import HybridCore
import HybridPresentation

/// `hybrid-authenticator credentials list|delete|export|import`.
struct CredentialsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "credentials",
        abstract: "Manage the passkey store.",
        subcommands: [ListCredentials.self, DeleteCredential.self, ExportCredentials.self, ImportCredentials.self]
    )

    /// `credentials list`: metadata only, so no passphrase is needed.
    struct ListCredentials: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the passkeys (no passphrase needed: only metadata is read).")

        @Option(
            help: ArgumentHelp(
                "Passkey store file (default: $XDG_DATA_HOME/hybrid-authenticator/passkeys.json).", valueName: "path"))
        var store: String?

        @Flag(help: "One JSON object per passkey and line.")
        var json = false

        func run() throws {
            let path = store ?? StoreOptions.defaultPath()
            let passkeys: [PasskeyMetadata]
            do {
                passkeys = try FilePasskeyStore.metadata(atPath: path)
            } catch {
                Console.writeError("error: \(StoreAccessError(path: path, error: error))\n")
                throw ExitCode.failure
            }
            for passkey in passkeys {
                if json {
                    Console.writeJSONOutput(Self.json(passkey).text + "\n")
                } else {
                    Console.writeOutput(Self.line(passkey) + "\n")
                }
            }
            if !json && passkeys.isEmpty { Console.writeError("No passkeys in \(path).\n") }
        }

        static func json(_ passkey: PasskeyMetadata) -> JSONLine {
            .object([
                ("credentialID", .string(Hex.encode(passkey.credentialID))), ("rpID", .string(passkey.rpID)),
                ("userName", .optional(passkey.userName)), ("userDisplayName", .optional(passkey.userDisplayName)),
                ("userHandle", .string(Hex.encode(passkey.userHandle))), ("signCount", .int(Int(passkey.signCount))),
                ("createdAt", .string(ISO8601DateFormatter().string(from: passkey.createdAt))),
                ("discoverable", .bool(passkey.isDiscoverable)),
            ])
        }

        static func line(_ passkey: PasskeyMetadata) -> String {
            let created = ISO8601DateFormatter().string(from: passkey.createdAt)
            let kind = passkey.isDiscoverable ? "discoverable" : "non-discoverable"
            return TerminalText.printable(
                "\(Hex.encode(passkey.credentialID))  \(passkey.rpID)  \(passkey.accountLabel)  "
                    + "created \(created)  signCount \(passkey.signCount)  \(kind)")
        }
    }

    /// `credentials delete <id>`: rewrites the store, so it needs the passphrase.
    struct DeleteCredential: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete one passkey by its credential ID (hex, as 'list' shows it).")

        @Argument(help: "The credential ID in hex.")
        var credentialID: String

        @OptionGroup var storeOptions: StoreOptions

        func validate() throws {
            guard (try? Hex.decode(credentialID))?.isEmpty == false else {
                throw ValidationError("the credential ID must be hex digits, as 'credentials list' shows it")
            }
        }

        func run() async throws {
            let id = (try? Hex.decode(credentialID)) ?? []
            do {
                let store = try await storeOptions.open()
                guard try await store.delete(credentialID: id) else {
                    Console.writeError(
                        "error: no passkey with credential ID \(credentialID.lowercased()) in \(store.path)\n")
                    throw ExitCode.failure
                }
                Console.writeOutput("Deleted \(Hex.encode(id)).\n")
            } catch let error as PasskeyStoreError {
                Console.writeError("error: \(StoreAccessError(path: storeOptions.path, error: error))\n")
                throw ExitCode.failure
            } catch let error as StoreAccessError {
                Console.writeError("error: \(error)\n")
                throw ExitCode.failure
            }
        }
    }
}
