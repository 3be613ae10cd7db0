import HybridAuthenticator
import HybridPresentation
import HybridWallet

/// The consent question for a presentation, made safe for a terminal: every name is passed
/// through ``TerminalText/printable(_:)``, so a request cannot rewrite the prompt around it.
enum PresentationConsentText {
    /// "https://example.com asks for: age over 18, from your PID. Share?"
    static func question(origin: String, credentials: [RequestedCredential]) -> String {
        let consent = ConsentRequest(
            origin: TerminalText.printable(origin),
            items: credentials.map { (TerminalText.printable($0.name), $0.claims.map(TerminalText.printable)) })
        guard credentials.allSatisfy(\.available) else {
            return consent.text + " Nothing in your wallet matches: the request will be refused. Press Enter."
        }
        return consent.text + " Share?"
    }
}
