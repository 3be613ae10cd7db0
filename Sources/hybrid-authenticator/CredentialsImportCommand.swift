import ArgumentParser
import Foundation
import HybridAuthenticator
import HybridCore
import HybridPresentation

/// `credentials import FILE [--replace]`: adds the passkeys of a CXF 1.0 document, all or none.
struct ImportCredentials: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import the passkeys of a FIDO Credential Exchange Format (CXF 1.0) JSON document.",
        discussion: """
            Reads the document (at most 8 MiB) before asking for the store's passphrase. Passkeys \
            (ES256) are added in one write, or none: an invalid member anywhere, or a passkey whose \
            credential ID (or account) is already in the store, changes nothing, unless --replace lets \
            imported passkeys replace the clashing ones. Other credential types are listed on standard \
            error and skipped. Imported passkeys have signature counter 0, which never increments.
            """)

    @Argument(help: ArgumentHelp("The CXF JSON document.", valueName: "file"))
    var file: String

    @Flag(help: "Let imported passkeys replace stored ones with the same credential ID or account.")
    var replace = false

    @OptionGroup var storeOptions: StoreOptions

    func run() async throws {
        let bytes: [UInt8]
        do {
            bytes = try CXFFile.read(atPath: file)
            _ = try CXFDocument(bytes: bytes)
        } catch let error as CXFFile.ReadFailure {
            switch error {
            case .tooLarge(let limit): Self.fail("\(file): larger than \(limit) bytes; nothing was imported")
            case .system(let code): Self.fail("cannot read \(file) (\(String(cString: strerror(code))))")
            case .notARegularFile: Self.fail("\(file) is not a regular file; nothing was imported")
            }
        } catch let error as CXFError {
            Self.fail("\(file): \(error); nothing was imported")
        }
        let store: FilePasskeyStore
        do {
            store = try await storeOptions.open()
        } catch {
            Self.fail("\(error)")
        }
        let report: PasskeyImportReport
        do {
            report = try await store.importCXF(bytes, replacing: replace, now: Date())
        } catch .document(let error) {
            Self.fail("\(file): \(error); nothing was imported")
        } catch .store(let error) {
            Self.fail("\(StoreAccessError(path: store.path, error: error))")
        }
        for skipped in report.plan.skipped {
            Console.writeError(
                TerminalText.printable(
                    "skipped: \(skipped.field) (\(skipped.type)\(skipped.itemTitle.map { ", \"\($0)\"" } ?? "")): only passkeys are imported"
                )
                    + "\n")
        }
        for (field, names) in report.plan.droppedExtensions {
            Console.writeError("note: \(field): \(names.joined(separator: ", ")) not kept (not supported here)\n")
        }
        switch report.outcome {
        case .refused(let conflicts):
            for conflict in conflicts {
                let what: String
                switch conflict.kind {
                case .sameCredential: what = "the store has this credential ID"
                case .sameAccount(let existing):
                    what = "the store has passkey \(Hex.encode(existing)) for the same account"
                }
                Console.writeError(
                    TerminalText.printable("conflict: \(conflict.rpID) \(Hex.encode(conflict.credentialID)): \(what)")
                        + "\n")
            }
            Self.fail("nothing was imported; pass --replace to replace the clashing passkeys")
        case .imported(let count, let replaced):
            Console.writeOutput(
                "Imported \(count) passkey\(count == 1 ? "" : "s") into \(store.path)"
                    + (replaced > 0 ? ", replacing \(replaced).\n" : ".\n"))
        }
    }

    private static func fail(_ message: String) -> Never {
        Console.writeError("error: \(message)\n")
        Foundation.exit(ExitCode.failure.rawValue)
    }
}
