import ArgumentParser
import Foundation
import HybridAuthenticator
import HybridLocalFiles
import HybridPresentation

/// `--store` and `--insecure-plaintext-store`, shared by serving and `credentials`.
struct StoreOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Passkey store file.",
            discussion: "Default: $XDG_DATA_HOME/hybrid-authenticator/passkeys.json (~/.local/share/... when unset).",
            valueName: "path"))
    var store: String?

    @Flag(help: "Keep private keys unencrypted (tests only). Needed to open a store created this way.")
    var insecurePlaintextStore = false

    @Option(
        help: ArgumentHelp(
            "Read the store passphrase from this open file descriptor (its first line), e.g. 3 with 3<file "
                + "or from a password manager; preferred to $HYBRID_AUTHENTICATOR_PASSPHRASE.",
            valueName: "fd"))
    var passphraseFD: Int32?

    @Flag(
        name: .customLong("insecure-fast-store-kdf"),
        help: ArgumentHelp(
            "TEST ONLY: create a new store with the cheapest accepted scrypt cost (N=2^14, 16 MiB) "
                + "instead of N=2^17; refused unless $HYBRID_ALLOW_INSECURE_FAST_KDF is 1. An existing store "
                + "keeps the cost written in it."))
    var insecureFastStoreKDF = false

    /// The store file to use.
    var path: String { store ?? Self.defaultPath() }

    /// The store when `--store` is absent: `$XDG_DATA_HOME/hybrid-authenticator/passkeys.json`,
    /// where an unset, empty or relative `XDG_DATA_HOME` means `~/.local/share`.
    static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        XDGBaseDirectory.data.path(environment: environment, homeDirectory: NSHomeDirectory)
            + "/hybrid-authenticator/passkeys.json"
    }

    /// Environment variable holding the store passphrase (else it is asked for on the terminal).
    /// It is removed from the environment as soon as it is read, so that no child process
    /// inherits it; `/proc/PID/environ` (this user and root only) still shows the value the
    /// process started with, which is why `--passphrase-fd` is preferred.
    static let passphraseVariable = "HYBRID_AUTHENTICATOR_PASSPHRASE"

    /// The environment variable that must be `1` for `--insecure-fast-store-kdf` to be accepted,
    /// so that a cheap-to-guess store is never created by a copied command line by accident.
    static let fastKDFAllowVariable = "HYBRID_ALLOW_INSECURE_FAST_KDF"

    /// Longest passphrase line read from `--passphrase-fd`.
    static let passphraseLimit = 4096

    /// Opens (or prepares) the store: plaintext with `--insecure-plaintext-store`, else with the
    /// passphrase from `--passphrase-fd`, ``passphraseVariable`` (then removed from the process
    /// environment through `unsetVariable`) or a no-echo prompt (asked twice for a new store).
    /// `newStoreParameters` is the scrypt cost of a store created now (default: `--insecure-fast-store-kdf`'s
    /// choice; tests lower it). `--insecure-fast-store-kdf` is refused unless ``fastKDFAllowVariable``
    /// is `1`. An encrypted store whose scrypt cost is below the recommended one is opened with
    /// one warning through `warn` (standard error by default).
    func open(
        console: any TerminalConsole = DeviceTerminal(),
        environment: [String: String] = ProcessInfo.processInfo.environment,
        unsetVariable: (String) -> Void = { unsetenv($0) },
        newStoreParameters: ScryptParameters? = nil,
        warn: (String) -> Void = { Console.writeError($0 + "\n") }
    ) async throws(StoreAccessError) -> FilePasskeyStore {
        if insecureFastStoreKDF, environment[Self.fastKDFAllowVariable] != "1" {
            throw StoreAccessError(path: path, reason: .fastKDFNotAllowed)
        }
        let newStoreParameters = newStoreParameters ?? (insecureFastStoreKDF ? .insecureFastForTesting : .recommended)
        if environment[Self.passphraseVariable] != nil { unsetVariable(Self.passphraseVariable) }
        let path = self.path
        let existing: FilePasskeyStore.StoredProtection?
        do {
            existing = try FilePasskeyStore.storedProtection(atPath: path)
        } catch {
            throw StoreAccessError(path: path, error: error)
        }
        let protection: FilePasskeyStore.Protection
        if insecurePlaintextStore {
            protection = .insecurePlaintext
        } else if existing == .plaintext {
            throw StoreAccessError(path: path, error: .notEncrypted)
        } else if let passphraseFD {
            protection = .passphrase(try Self.readPassphrase(from: passphraseFD, path: path))
        } else if let passphrase = environment[Self.passphraseVariable], !passphrase.isEmpty {
            protection = .passphrase(passphrase)
        } else {
            protection = .passphrase(try await Self.askPassphrase(for: path, isNew: existing == nil, console: console))
        }
        let store: FilePasskeyStore
        do {
            store = try FilePasskeyStore(path: path, protection: protection, newStoreParameters: newStoreParameters)
        } catch {
            throw StoreAccessError(path: path, error: error)
        }
        if let parameters = await store.scryptParameters, parameters.isBelowRecommended {
            warn(
                "warning: the passkey store \(path) uses a test-only scrypt cost (N=\(parameters.n) r=\(parameters.r) "
                    + "p=\(parameters.p)), cheaper to guess its passphrase than the recommended N=2^17; "
                    + "do not keep real passkeys in it")
        }
        return store
    }

    /// The first line of `fd` (which is then closed), not empty.
    private static func readPassphrase(from fd: Int32, path: String) throws(StoreAccessError) -> String {
        defer { close(fd) }
        let line: [UInt8]?
        do {
            line = try readBoundedLine(fd, limit: passphraseLimit)
        } catch {
            throw StoreAccessError(path: path, reason: .passphraseDescriptor(fd: fd, error))
        }
        guard let line, !line.isEmpty else { throw StoreAccessError(path: path, reason: .noPassphrase) }
        return String(decoding: line, as: UTF8.self)
    }

    private static func askPassphrase(
        for path: String, isNew: Bool, console: any TerminalConsole
    ) async throws(StoreAccessError) -> String {
        await console.write(isNew ? "New passphrase for the passkey store \(path): " : "Passphrase for \(path): ")
        let first = await console.readLine(hidingInput: true)
        await console.write("\n")
        guard let first, !first.isEmpty else { throw StoreAccessError(path: path, reason: .noPassphrase) }
        if isNew {
            await console.write("Repeat the passphrase: ")
            let second = await console.readLine(hidingInput: true)
            await console.write("\n")
            guard second == first else { throw StoreAccessError(path: path, reason: .passphrasesDiffer) }
        }
        return first
    }
}

/// Why the passkey store could not be opened; ``description`` says what to do.
struct StoreAccessError: Error, CustomStringConvertible, Equatable {
    enum Reason: Equatable {
        case store(PasskeyStoreError)
        case noPassphrase
        case passphrasesDiffer
        /// `--insecure-fast-store-kdf` without ``StoreOptions/fastKDFAllowVariable`` = `1`.
        case fastKDFNotAllowed
        /// `--passphrase-fd` could not be read.
        case passphraseDescriptor(fd: Int32, LineReadError)
    }

    let path: String
    let reason: Reason

    init(path: String, reason: Reason) {
        self.path = path
        self.reason = reason
    }

    init(path: String, error: PasskeyStoreError) {
        self.init(path: path, reason: .store(error))
    }

    var description: String {
        switch reason {
        case .noPassphrase:
            return
                "no passphrase for the passkey store: give --passphrase-fd, set \(StoreOptions.passphraseVariable) or run on a terminal"
        case .passphrasesDiffer:
            return "the passphrases differ; nothing was created"
        case .fastKDFNotAllowed:
            return
                "--insecure-fast-store-kdf makes a store whose passphrase is cheap to guess (tests only): "
                + "set \(StoreOptions.fastKDFAllowVariable)=1 to use it"
        case .passphraseDescriptor(let fd, .system(let code)):
            return "cannot read the passphrase from file descriptor \(fd) (\(String(cString: strerror(code))))"
        case .passphraseDescriptor(let fd, .tooLong(let limit)):
            return "the passphrase on file descriptor \(fd) is longer than \(limit) bytes"
        case .store(let error):
            return "passkey store \(path): " + Self.describe(error)
        }
    }

    static func describe(_ error: PasskeyStoreError) -> String {
        switch error {
        case .wrongPassphrase: "wrong passphrase"
        case .passphraseRequired: "it is encrypted and needs a passphrase"
        case .notEncrypted: "it is an insecure plaintext store: pass --insecure-plaintext-store to use it"
        case .corrupt(let reason): "not a valid store (\(reason)); it was left untouched"
        case .unsupportedVersion(let version): "written by a newer version of this program (format \(version))"
        case .unknownCredential: "no passkey has that credential ID"
        case .authenticationFailed:
            "it fails authentication (changed by someone without the passphrase); it was left untouched"
        case .scryptParametersOutOfRange(let parameters):
            "its scrypt parameters N=\(parameters.n) r=\(parameters.r) p=\(parameters.p) are out of the accepted range"
        case .tooLarge(let limit): "it is larger than \(limit >> 20) MiB"
        case .io(let operation, let path, let errno):
            "\(operation) \(path) failed (\(String(cString: strerror(errno))))"
        case .refusedFile(let path, let refusal): "refusing to open \(path): \(refusal)"
        }
    }
}
