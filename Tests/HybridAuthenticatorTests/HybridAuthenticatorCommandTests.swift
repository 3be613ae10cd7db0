import ArgumentParser
import Foundation
import HybridAuthenticator
import HybridBluetooth
import HybridCTAP
import HybridCore
import Synchronization
import Testing

@testable import hybrid_authenticator

/// The command line (style.md §7.7: parse and inspect, no process) and what it prints.
@Suite(.timeLimit(.minutes(5)))
struct HybridAuthenticatorCommandTests {
    func serve(_ arguments: [String]) throws -> ServeCommand {
        let command = try HybridAuthenticatorCommand.parseAsRoot(arguments)
        return try #require(command as? ServeCommand)
    }

    @Test func theStableInterfaceParsesWithoutASubcommandName() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let caFile = directory.file("ca.pem")
        #expect(FileManager.default.createFile(atPath: caFile, contents: Data()))
        let command = try serve([
            "FIDO:/0123", "--tunnel-url", "ws://127.0.0.1:8080", "--domain-id", "256", "--ble", "hci",
            "--adapter", "hci1", "--yes", "--json", "--store", "/tmp/passkeys.json", "--insecure-plaintext-store",
            "--ca-file", caFile,
        ])
        #expect(command.qrSource.qrCode == "FIDO:/0123")
        #expect(command.yes && command.json)
        #expect(command.storeOptions.path == "/tmp/passkeys.json")
        #expect(command.storeOptions.insecurePlaintextStore)
        #expect(command.bluetooth.adapter == "hci1")
        let options = command.runnerOptions(ble: .hci(adapter: "hci1"))
        #expect(options.domainID == 256)
        #expect(options.tunnelOrigin == TunnelServerOrigin(scheme: .ws, host: "127.0.0.1", port: 8080))
        #expect(options.caFile == caFile)
        #expect(command.bluetooth.ble == "hci")
    }

    @Test func defaults() throws {
        let command = try serve([])
        #expect(command.qrSource.qrCode == nil)
        #expect(!command.yes && !command.json && !command.storeOptions.insecurePlaintextStore)
        #expect(command.storeOptions.store == nil)
        #expect(command.bluetooth.ble == nil)
        let options = command.runnerOptions(ble: .hci(adapter: nil))
        #expect(options.domainID == 0)
        #expect(options.tunnelOrigin == nil)
        #expect(options.tunnelConnectTimeout == .seconds(10))
        #expect(options.clientWaitTimeout == .seconds(120))
        #expect(options.overallTimeout == .seconds(300))
        #expect(options.maxQRCodeAge == .seconds(600))
    }

    @Test func explicitServeAndStdinDashAndTimeouts() throws {
        let command = try serve([
            "serve", "-", "--timeout", "0", "--max-qr-age", "0", "--client-timeout", "1.5", "--connect-timeout", "2",
        ])
        #expect(command.qrSource.qrCode == "-")
        let options = command.runnerOptions(ble: .hci(adapter: nil))
        #expect(options.overallTimeout == nil)
        #expect(options.maxQRCodeAge == nil)
        #expect(options.clientWaitTimeout == .milliseconds(1500))
        #expect(options.tunnelConnectTimeout == .seconds(2))
        #expect(try ServeCommand.parse(["FIDO:/1", "--domain-id", "1"]).tunnel.domainID == 1)
    }

    /// --log-level as before, and --verbose as hybrid-client and hybrid-security-key take it (the
    /// shared LogOptions).
    @Test func logLevelAndVerbose() throws {
        #expect(try serve([]).log.level == .warning)
        #expect(try serve(["--log-level", "debug"]).log.level == .debug)
        #expect(try serve(["--verbose"]).log.level == .debug)
    }

    @Test(arguments: [
        ["--domain-id", "2"], ["--domain-id", "65536"], ["--tunnel-url", "http://127.0.0.1:8080"],
        ["--tunnel-url", "ws://127.0.0.1:8080/cable"], ["--ble", "radio"], ["--client-timeout", "0"],
        ["--timeout", "-1"], ["--log-level", "loud"], ["--verbose", "--log-level", "info"],
        ["--ca-file", "/nonexistent/ca.pem"],
    ])
    func badArgumentsAreRejected(arguments: [String]) {
        #expect(throws: (any Error).self) { try HybridAuthenticatorCommand.parseAsRoot(["FIDO:/1"] + arguments) }
    }

    @Test func credentialsSubcommands() throws {
        let parsedList = try HybridAuthenticatorCommand.parseAsRoot([
            "credentials", "list", "--store", "/tmp/s.json", "--json",
        ])
        let list = try #require(parsedList as? CredentialsCommand.ListCredentials)
        #expect(list.store == "/tmp/s.json" && list.json)
        let parsedDelete = try HybridAuthenticatorCommand.parseAsRoot([
            "credentials", "delete", "0A0b", "--store", "/tmp/s.json", "--insecure-plaintext-store",
        ])
        let delete = try #require(parsedDelete as? CredentialsCommand.DeleteCredential)
        #expect(delete.credentialID == "0A0b")
        #expect(delete.storeOptions.insecurePlaintextStore)
        #expect(throws: (any Error).self) {
            try HybridAuthenticatorCommand.parseAsRoot(["credentials", "delete", "xyz"])
        }
    }

    @Test func helpExplainsTheInterface() {
        let help = HybridAuthenticatorCommand.helpMessage()
        for text in [
            "--tunnel-url", "--domain-id", "--ble sim|hci|bluez", "--ca-file", "credentials list", "\"event\"",
            "HYBRID_AUTHENTICATOR_PASSPHRASE", "Exit status",
        ] {
            #expect(help.contains(text), "help lacks \(text)")
        }
        let serveHelp = ServeCommand.helpMessage()
        for text in ["--client-timeout", "--max-qr-age", "--insecure-plaintext-store", "--yes", "--json"] {
            #expect(serveHelp.contains(text), "serve help lacks \(text)")
        }
    }

    @Test func deleteRemovesExactlyThatPasskey() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("s.json")
        let store = try FilePasskeyStore(path: path, protection: .insecurePlaintext)
        let keep = Array(repeating: UInt8(1), count: 16)
        let drop = Array(repeating: UInt8(0xAB), count: 16)
        try await store.add(Fixtures.passkey(id: keep, user: [1], name: "alice"))
        try await store.add(Fixtures.passkey(id: drop, user: [2], name: "bob"))
        let parsed = try HybridAuthenticatorCommand.parseAsRoot([
            "credentials", "delete", String(repeating: "AB", count: 16), "--store", path, "--insecure-plaintext-store",
        ])
        let delete = try #require(parsed as? CredentialsCommand.DeleteCredential)
        try await delete.run()
        #expect(try FilePasskeyStore.metadata(atPath: path).map(\.credentialID) == [keep])
        // A second delete of the same ID fails and changes nothing.
        await #expect(throws: ExitCode.failure) { try await delete.run() }
        #expect(try FilePasskeyStore.metadata(atPath: path).map(\.credentialID) == [keep])
    }

    // MARK: --json lines

    @Test func advertisingLineHasTheDocumentedShape() {
        let serviceData = Array(UInt8(0)..<20)
        #expect(
            EventPrinter.json(.advertising(uuid: 0xFFF9, serviceData: serviceData)).text
                == #"{"event":"advertising","uuid":"fff9","serviceData":"000102030405060708090a0b0c0d0e0f10111213"}"#)
        #expect(EventPrinter.json(.error(message: "boom")).text == #"{"event":"error","message":"boom"}"#)
    }

    @Test func everyEventIsOneJSONObjectWithAnEventMember() throws {
        let events: [AuthenticatorEvent] = [
            .waitingForTunnel(origin: TunnelServerOrigin(scheme: .wss, host: "cable.ua5v.com"), domainID: .google),
            .tunnelOpened(routingID: try #require(RoutingID(hex: "0a0b0c"))),
            .advertising(uuid: 0xFFF9, serviceData: [UInt8](repeating: 1, count: 20)), .advertisingStopped,
            .connected(channel: .tunnel), .handshakeDone,
            .request(command: .getAssertion, rpID: "ex\"am\nple\u{1b}.com"),
            .request(command: CTAPCommand(rawValue: 0x77), rpID: nil), .approved(status: .ok),
            .denied(status: CTAPStatusCode(rawValue: 0x27)),
            .done(AuthenticatorRunSummary(answers: [.init(command: .makeCredential, rpID: "a.com", status: .ok)])),
            .error(message: "tab\there"), .listeningL2CAP(psm: 130), .tunnelUnavailable(reason: "refused"),
            .connected(channel: .l2cap),
        ]
        for event in events {
            let text = EventPrinter.json(event).text
            #expect(!text.contains("\n"))
            // Foundation's parser is the independent reader here.
            let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            #expect(object["event"] is String, "\(text)")
            #expect(text.hasPrefix(#"{"event":"#))
        }
        let request =
            try JSONSerialization.jsonObject(
                with: Data(EventPrinter.json(events[6]).text.utf8)) as? [String: Any]
        #expect(request?["rpID"] as? String == "ex\"am\nple\u{1b}.com")
        #expect(request?["command"] as? String == "getAssertion")
        let denied =
            try JSONSerialization.jsonObject(with: Data(EventPrinter.json(events[9]).text.utf8)) as? [String: Any]
        #expect(denied?["status"] as? Int == 0x27)
        #expect(denied?["statusName"] as? String == "CTAP2_ERR_OPERATION_DENIED")
        let done =
            try JSONSerialization.jsonObject(with: Data(EventPrinter.json(events[10]).text.utf8)) as? [String: Any]
        #expect(done?["served"] as? Bool == true)
        #expect(EventPrinter.json(events[4]).text == #"{"event":"connected","channel":"tunnel"}"#)
        #expect(EventPrinter.json(events[12]).text == #"{"event":"listeningL2CAP","psm":130}"#)
        #expect(EventPrinter.json(events[14]).text == #"{"event":"connected","channel":"l2cap"}"#)
    }

    @Test func humanTextNeverCarriesControlCharactersFromThePeer() {
        let line = EventPrinter.human(.request(command: .makeCredential, rpID: "evil\u{1b}[2J.com"))
        #expect(line == "Request: makeCredential for evil?[2J.com")
    }

    // MARK: store access

    @Test func aNewStoreAsksForThePassphraseTwice() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let options = try StoreOptions.parse(["--store", directory.file("s.json")])
        let console = ScriptedConsole(["secret", "secret"])
        let store = try await options.open(
            console: console, environment: [:], newStoreParameters: .insecureFastForTesting)
        #expect(store.isEncrypted)
        #expect(await console.hiddenReads == 2)
        #expect(await store.verifyPassphrase("secret"))

        let mismatch = ScriptedConsole(["one", "two"])
        await #expect(throws: StoreAccessError(path: directory.file("s.json"), reason: .passphrasesDiffer)) {
            _ = try await options.open(console: mismatch, environment: [:], newStoreParameters: .insecureFastForTesting)
        }
    }

    @Test func thePassphraseComesFromTheEnvironmentAndPlaintextNeedsTheFlag() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("s.json")
        let plaintext = try StoreOptions.parse(["--store", path, "--insecure-plaintext-store"])
        let store = try await plaintext.open(console: ScriptedConsole([]), environment: [:])
        try await store.add(Fixtures.passkey(id: Array(repeating: 1, count: 16), user: [1], name: "alice"))
        let encrypted = try StoreOptions.parse(["--store", path])
        await #expect(throws: StoreAccessError(path: path, error: .notEncrypted)) {
            _ = try await encrypted.open(
                console: ScriptedConsole([]), environment: [StoreOptions.passphraseVariable: "pass"])
        }
        let other = directory.file("t.json")
        let fromEnvironment = try StoreOptions.parse(["--store", other])
        let console = ScriptedConsole([])
        let opened = try await fromEnvironment.open(
            console: console, environment: [StoreOptions.passphraseVariable: "from env"],
            newStoreParameters: .insecureFastForTesting)
        #expect(await opened.verifyPassphrase("from env"))
        #expect(await console.hiddenReads == 0)
    }

    /// The passphrase variable is removed from the environment once read (no child process inherits
    /// it), also when a descriptor or the flag made it unnecessary.
    @Test func thePassphraseVariableIsUnsetOnceRead() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let unset = UnsetRecorder()
        let options = try StoreOptions.parse(["--store", directory.file("s.json")])
        _ = try await options.open(
            console: ScriptedConsole([]), environment: [StoreOptions.passphraseVariable: "from env"],
            unsetVariable: { name in unset.names.withLock { $0.append(name) } },
            newStoreParameters: .insecureFastForTesting)
        #expect(unset.names.withLock { $0 } == [StoreOptions.passphraseVariable])
        // The real thing: the process environment no longer has it.
        setenv(StoreOptions.passphraseVariable, "from env", 1)
        let opened = try await options.open(console: ScriptedConsole([]), newStoreParameters: .insecureFastForTesting)
        #expect(await opened.verifyPassphrase("from env"))
        #expect(getenv(StoreOptions.passphraseVariable) == nil)
    }

    /// `--insecure-fast-store-kdf` (CI's phone under TCG): a new store gets scrypt N = 2^14, the
    /// smallest the format accepts (read back from the file's JSON, not from our types); without
    /// it N = 2^17 (OWASP's recommendation); an existing store keeps the cost written in it.
    @Test func theFastKDFFlagOnlyLowersTheCostOfANewStore() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        func scryptN(_ path: String) throws -> Int? {
            let json =
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
            return (json?["protection"] as? [String: Any])?["scryptN"] as? Int
        }
        let environment = [StoreOptions.passphraseVariable: "pass", StoreOptions.fastKDFAllowVariable: "1"]
        let fast = directory.file("fast.json")
        let fastOptions = try StoreOptions.parse(["--store", fast, "--insecure-fast-store-kdf"])
        try await fastOptions.open(console: ScriptedConsole([]), environment: environment, unsetVariable: { _ in })
            .add(Fixtures.passkey(id: Array(repeating: 1, count: 16), user: [1], name: "alice"))
        #expect(try scryptN(fast) == 1 << 14)

        let recommended = directory.file("recommended.json")
        try await StoreOptions.parse(["--store", recommended]).open(
            console: ScriptedConsole([]), environment: environment, unsetVariable: { _ in }
        ).add(Fixtures.passkey(id: Array(repeating: 2, count: 16), user: [2], name: "bob"))
        #expect(try scryptN(recommended) == 1 << 17)

        let reopened = try await StoreOptions.parse(["--store", recommended, "--insecure-fast-store-kdf"]).open(
            console: ScriptedConsole([]), environment: environment, unsetVariable: { _ in })
        try await reopened.add(Fixtures.passkey(id: Array(repeating: 3, count: 16), user: [3], name: "carol"))
        #expect(try scryptN(recommended) == 1 << 17)
    }

    /// `--passphrase-fd N`: the first line of descriptor N is the passphrase (a pipe here); the
    /// environment and the terminal are not consulted.
    @Test func thePassphraseComesFromADescriptor() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let line = Array("from fd\nrest".utf8)
        #expect(write(ends[1], line, line.count) == line.count)
        close(ends[1])
        let options = try StoreOptions.parse(["--store", directory.file("s.json"), "--passphrase-fd", "\(ends[0])"])
        let console = ScriptedConsole([])
        let store = try await options.open(
            console: console, environment: [StoreOptions.passphraseVariable: "from env"], unsetVariable: { _ in },
            newStoreParameters: .insecureFastForTesting)
        #expect(await store.verifyPassphrase("from fd"))
        #expect(await console.hiddenReads == 0)
    }
}

/// The names ``StoreOptions/open(console:environment:unsetVariable:newStoreParameters:)`` unset.
private final class UnsetRecorder: Sendable {
    let names = Mutex<[String]>([])
}
