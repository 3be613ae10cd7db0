import Foundation
import HybridAuthenticator
import HybridCTAP
import HybridCore
import HybridPresentation
import Testing

@testable import hybrid_authenticator

/// A console that answers from a list and records what was shown.
actor ScriptedConsole: TerminalConsole {
    private var answers: [String?]
    private(set) var shown = ""
    private(set) var hiddenReads = 0

    init(_ answers: [String?]) { self.answers = answers }

    func write(_ text: String) { shown += text }

    func readLine(hidingInput: Bool) -> String? {
        if hidingInput { hiddenReads += 1 }
        return answers.isEmpty ? nil : answers.removeFirst()
    }
}

@Suite struct TerminalUserInteractionTests {
    @Test func confirmationPromptsNameTheRPAndUser() async {
        let console = ScriptedConsole(["y", "YES ", "n", "", "sure"])
        let terminal = TerminalUserInteraction(console: console, verifyPassphrase: nil)
        #expect(await terminal.confirm(operation: .getAssertion, rpID: "example.com", userName: "alice"))
        #expect(await terminal.confirm(operation: .makeCredential, rpID: "example.com", userName: "alice"))
        #expect(!(await terminal.confirm(operation: .getAssertion, rpID: "example.com", userName: "alice")))
        #expect(!(await terminal.confirm(operation: .selection, rpID: nil, userName: nil)))
        #expect(!(await terminal.confirm(operation: .excludedCredential, rpID: "example.com", userName: "bob")))
        // End of input.
        #expect(!(await terminal.confirm(operation: .getAssertion, rpID: "example.com", userName: nil)))
        let shown = await console.shown
        #expect(
            shown.hasPrefix("Sign in to example.com as alice? [y/N] Create a passkey for example.com as alice? [y/N] "))
        #expect(shown.contains("Use this authenticator? [y/N] "))
        #expect(shown.contains("A passkey for example.com as bob is already on this device."))
        #expect(shown.hasSuffix("Sign in to example.com? [y/N] "))
    }

    @Test func accountChoiceListsAccounts() async {
        let accounts = [
            AccountChoice(userName: "alice", userDisplayName: "Alice A.", createdAt: Date()),
            AccountChoice(userName: nil, userDisplayName: "Bob", createdAt: Date()),
        ]
        let console = ScriptedConsole(["2", "", "3", "x", "1"])
        let terminal = TerminalUserInteraction(console: console, verifyPassphrase: nil)
        #expect(await terminal.chooseAccount(rpID: "example.com", accounts: accounts) == 1)
        #expect(await terminal.chooseAccount(rpID: "example.com", accounts: accounts) == nil)
        #expect(await terminal.chooseAccount(rpID: "example.com", accounts: accounts) == nil)
        #expect(await terminal.chooseAccount(rpID: "example.com", accounts: accounts) == nil)
        #expect(await terminal.chooseAccount(rpID: "example.com", accounts: accounts) == 0)
        #expect(
            await console.shown.hasPrefix(
                "Sign in to example.com with which account?\n  1) alice (Alice A.)\n  2) Bob\n"))
    }

    /// A client's RP ID and user names reach the prompt: escape sequences, carriage returns and
    /// bidi overrides in them must not reach the terminal.
    @Test func peerTextCannotDriveTheTerminal() async {
        let console = ScriptedConsole(["n", ""])
        let terminal = TerminalUserInteraction(console: console, verifyPassphrase: nil)
        let rpID = "evil.example\u{1B}[2K\rexample.com"
        let user = "alice\u{202E}moc.elpmaxe\u{2066}\u{9B}"
        _ = await terminal.confirm(operation: .getAssertion, rpID: rpID, userName: user)
        _ = await terminal.chooseAccount(
            rpID: rpID, accounts: [AccountChoice(userName: user, userDisplayName: "Bob\u{7F}", createdAt: Date())])
        let shown = await console.shown
        #expect(shown.hasPrefix("Sign in to evil.example?[2K?example.com as alice?moc.elpmaxe??? [y/N] "))
        #expect(shown.contains("  1) alice?moc.elpmaxe?? (Bob?)\n"))
        for unsafe: Unicode.Scalar in ["\u{1B}", "\r", "\u{202E}", "\u{2066}", "\u{9B}", "\u{7F}"] {
            #expect(!shown.unicodeScalars.contains(unsafe))
        }
        #expect(TerminalText.printable("Zoë 👩‍💻 日本") == "Zoë 👩‍💻 日本")
    }

    @Test func userVerificationChecksThePassphraseHidden() async {
        let console = ScriptedConsole(["wrong", "right"])
        let terminal = TerminalUserInteraction(console: console, verifyPassphrase: { $0 == "right" })
        #expect(await terminal.verifyUser())
        #expect(await console.hiddenReads == 2)
        #expect(await console.shown.contains("Wrong passphrase, try again."))

        let failing = TerminalUserInteraction(
            console: ScriptedConsole(["a", "b", "c", "right"]), verifyPassphrase: { $0 == "right" })
        #expect(!(await failing.verifyUser()))
        #expect(
            !(await TerminalUserInteraction(console: ScriptedConsole(["right"]), verifyPassphrase: nil).verifyUser()))
    }

    /// UV with a wrong passphrase through the whole engine, checked against a real encrypted store.
    @Test func wrongPassphraseDeniesUserVerification() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = try FilePasskeyStore(
            path: directory.file("passkeys.json"), protection: .passphrase("open sesame"),
            newStoreParameters: .insecureFastForTesting)
        let uvRequest = Fixtures.makeCredential(options: CTAPRequestOptions(residentKey: true, userVerification: true))

        let wrong = TerminalUserInteraction(
            console: ScriptedConsole(["y", "guess 1", "guess 2", "guess 3"]),
            verifyPassphrase: { await store.verifyPassphrase($0) })
        #expect(await Fixtures.authenticator(store: store, user: wrong).handle(uvRequest.encoded) == [0x27])
        #expect(await store.list().isEmpty)

        let right = TerminalUserInteraction(
            console: ScriptedConsole(["y", "open sesame"]), verifyPassphrase: { await store.verifyPassphrase($0) })
        let response = try MakeCredentialResponse(
            responseBytes: await Fixtures.authenticator(store: store, user: right).handle(uvRequest.encoded))
        #expect(response.authenticatorData.flags.contains(.userVerified))
        #expect(await store.list().count == 1)
    }

    @Test func autoApproveApprovesAndReportsUVOnlyWhenTold() async {
        let auto = AutoApproveUserInteraction()
        #expect(await auto.confirm(operation: .getAssertion, rpID: "a", userName: nil))
        #expect(
            await auto.chooseAccount(
                rpID: "a", accounts: [AccountChoice(userName: "x", userDisplayName: nil, createdAt: Date())]) == 0)
        #expect(await auto.chooseAccount(rpID: "a", accounts: []) == nil)
        #expect(!(await auto.verifyUser()))
        #expect(await AutoApproveUserInteraction(userVerification: true).verifyUser())
    }
}
