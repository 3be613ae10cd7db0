import ArgumentParser
import Foundation
import HybridAuthenticator
import HybridCore
import HybridPresentation

/// `credentials export [--output FILE] [--force-terminal]`: the store's passkeys as one CXF 1.0
/// document (``CXFDocument``), plaintext JSON holding private keys.
///
/// Where it goes: a new file (`--output`, created 0600 with O_EXCL|O_NOFOLLOW, never over anything),
/// or standard output when that is a pipe (e.g. into `age -p` or `gpg -c`). Standard output that is
/// a terminal needs `--force-terminal`; one redirected to a file is refused (the shell made that
/// file with the umask's mode, not 0600), as is anything else. Nothing of the document is logged.
struct ExportCredentials: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export the passkeys as a FIDO Credential Exchange Format (CXF 1.0) JSON document.",
        discussion: """
            The document holds every exportable passkey's private key and prf secret in the clear: \
            anyone who reads it can sign in as you. It is written to a new file (--output, mode 0600, \
            never over an existing file or through a symbolic link) or to standard output when that is \
            a pipe, e.g. 'hybrid-authenticator credentials export | age -p > passkeys.cxf.age'. \
            Passkeys with a non-zero signature counter are left out (CXF requires it); what was left \
            out and why is said on standard error.
            """)

    /// What the header names as the exporter: this program has no domain of its own, and
    /// `.invalid` (RFC 2606) is the reserved name that says so.
    static let exporterRPID = "hybrid-authenticator.invalid"
    static let exporterDisplayName = "hybrid-authenticator"

    @Option(help: ArgumentHelp("Write to this new file (created with mode 0600).", valueName: "file"))
    var output: String?

    @Flag(help: "Write to standard output even when it is a terminal (the keys appear on the screen).")
    var forceTerminal = false

    @OptionGroup var storeOptions: StoreOptions

    func validate() throws {
        if output == nil {
            if isatty(STDOUT_FILENO) == 1 {
                guard forceTerminal else {
                    throw ValidationError(
                        "standard output is a terminal: give --output FILE, pipe it (e.g. into 'age -p'), "
                            + "or pass --force-terminal to show the private keys on the screen")
                }
            } else {
                var info = stat()
                if fstat(STDOUT_FILENO, &info) == 0, info.st_mode & S_IFMT == S_IFREG {
                    throw ValidationError(
                        "standard output is a file the shell created with your umask's mode: use --output FILE "
                            + "(created 0600, never over an existing file)")
                }
            }
        }
    }

    func run() async throws {
        let store: FilePasskeyStore
        do {
            store = try await storeOptions.open()
        } catch {
            Console.writeError("error: \(error)\n")
            throw ExitCode.failure
        }
        let export = PasskeyExport(
            passkeys: await store.allPasskeys(), exporterRPID: Self.exporterRPID,
            exporterDisplayName: Self.exporterDisplayName, timestamp: Date())
        let bytes = export.document.encoded(accountID: RandomSource.system.bytes(16))
        do {
            if let output {
                try ExclusiveFile.create(atPath: output, contents: bytes)
            } else {
                try ExclusiveFile.write(bytes, to: STDOUT_FILENO, path: "standard output")
            }
        } catch {
            Console.writeError("error: \(error)\n")
            throw ExitCode.failure
        }
        for (passkey, notes) in export.notes {
            for note in notes { Console.writeError(Self.describe(note, passkey) + "\n") }
        }
        let count = export.document.passkeys.count
        Console.writeError(
            "Exported \(count) passkey\(count == 1 ? "" : "s") to \(output ?? "standard output"). "
                + "The document holds private keys in the clear: keep it safe and delete it after the import.\n")
    }

    static func describe(_ note: PasskeyExport.Note, _ passkey: PasskeyMetadata) -> String {
        let name = TerminalText.printable(
            "\(passkey.rpID) \(passkey.accountLabel) (\(Hex.encode(passkey.credentialID)))")
        switch note {
        case .excludedNonZeroSignatureCounter(let count):
            return "left out: \(name): its signature counter is \(count); CXF moves only passkeys whose counter is 0"
        case .withoutPRF:
            return "note: \(name) has no prf secret (made before prf support); exported without hmacCredentials"
        case .credentialProtectionNotCarried(let level):
            return
                "note: \(name): its credProtect level \(level) has no CXF member; the importer applies its own policy"
        case .becomesDiscoverable:
            return "note: \(name) is not discoverable here; CXF has no such flag, so importers make it discoverable"
        }
    }
}
