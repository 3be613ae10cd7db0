import HybridAuthenticator
import HybridPresentation

/// Asks the user on the terminal: "Sign in to example.com as alice? [y/N]".
///
/// Prompts go to the controlling terminal (or standard error, never standard output, which may
/// carry JSON events). Anything but "y"/"yes" declines. User verification asks for the store
/// passphrase without echo and checks it with `verifyPassphrase`, allowing a few attempts.
package struct TerminalUserInteraction: UserInteraction {
    private let console: any TerminalConsole
    private let verifyPassphrase: (@Sendable (String) async -> Bool)?
    private let maximumAttempts: Int

    /// - Parameters:
    ///   - console: where to ask; ``DeviceTerminal`` by default.
    ///   - verifyPassphrase: checks a typed passphrase (e.g. ``FilePasskeyStore/verifyPassphrase(_:)``);
    ///     nil when the store has none, so user verification always fails.
    ///   - maximumAttempts: passphrase attempts per verification.
    package init(
        console: any TerminalConsole = DeviceTerminal(),
        verifyPassphrase: (@Sendable (String) async -> Bool)?,
        maximumAttempts: Int = 3
    ) {
        self.console = console
        self.verifyPassphrase = verifyPassphrase
        self.maximumAttempts = max(1, maximumAttempts)
    }

    /// Asks on the terminal; approved only by `y` or `yes`.
    package func confirm(operation: UserOperation, rpID: String?, userName: String?) async -> Bool {
        let rp = rpID.map(TerminalText.printable) ?? "this relying party"
        let account = userName.map { " as \(TerminalText.printable($0))" } ?? ""
        let question: String
        switch operation {
        case .makeCredential: question = "Create a passkey for \(rp)\(account)?"
        case .getAssertion: question = "Sign in to \(rp)\(account)?"
        case .excludedCredential: question = "A passkey for \(rp)\(account) is already on this device. Tell the site?"
        case .selection: question = "Use this authenticator?"
        }
        await console.write(question + " [y/N] ")
        guard let answer = await console.readLine(hidingInput: false) else { return false }
        return ["y", "yes"].contains(answer.trimmingWhitespace().lowercased())
    }

    /// Lists the accounts on the terminal and reads a number; `nil` if none is chosen.
    package func chooseAccount(rpID: String, accounts: [AccountChoice]) async -> Int? {
        var text = "Sign in to \(TerminalText.printable(rpID)) with which account?\n"
        for (index, account) in accounts.enumerated() {
            let name = account.userName.nonEmpty ?? account.userDisplayName.nonEmpty ?? "(unnamed account)"
            let display = account.userDisplayName.nonEmpty.map { $0 == name ? "" : " (\($0))" } ?? ""
            text += "  \(index + 1)) \(TerminalText.printable(name + display))\n"
        }
        await console.write(text + "Number, or empty to cancel: ")
        guard let answer = await console.readLine(hidingInput: false), let number = Int(answer.trimmingWhitespace()),
            (1...accounts.count).contains(number)
        else { return nil }
        return number - 1
    }

    /// "https://example.com asks for: age over 18, from your PID. Share? [y/N]"; `y` or `yes` shares.
    package func confirmPresentation(origin: String, credentials: [RequestedCredential]) async -> Bool {
        guard credentials.allSatisfy(\.available) else {
            await console.write(PresentationConsentText.question(origin: origin, credentials: credentials) + " ")
            _ = await console.readLine(hidingInput: false)
            return false
        }
        await console.write(PresentationConsentText.question(origin: origin, credentials: credentials) + " [y/N] ")
        let answer = await console.readLine(hidingInput: false)?.trimmingWhitespace().lowercased()
        return answer == "y" || answer == "yes"
    }

    /// True when there is a passphrase to check (`verifyPassphrase` given).
    package var canVerifyUser: Bool { verifyPassphrase != nil }

    /// Asks for the store passphrase on the terminal, without echo, a few attempts; `false` if there is none to check.
    package func verifyUser() async -> Bool {
        guard let verifyPassphrase else {
            await console.write("User verification is not available: the passkey store has no passphrase.\n")
            return false
        }
        for attempt in 1...maximumAttempts {
            await console.write("Passphrase: ")
            guard let passphrase = await console.readLine(hidingInput: true) else { return false }
            await console.write("\n")
            if await verifyPassphrase(passphrase) { return true }
            await console.write(attempt < maximumAttempts ? "Wrong passphrase, try again.\n" : "Wrong passphrase.\n")
        }
        return false
    }
}

extension String {
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars.drop(while: { $0.properties.isWhitespace }).reversed().drop(while: {
            $0.properties.isWhitespace
        })
        return String(String.UnicodeScalarView(scalars.reversed()))
    }
}
