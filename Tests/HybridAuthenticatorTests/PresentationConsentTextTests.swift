import HybridAuthenticator
import Testing

@testable import hybrid_authenticator

/// The wallet's consent question as the terminal asks it.
@Suite struct PresentationConsentTextTests {
    /// The terminal question, with control characters from the request neutralised.
    @Test func terminalQuestion() {
        #expect(
            PresentationConsentText.question(
                origin: "https://example.com", credentials: [RequestedCredential(name: "PID", claims: ["age over 18"])])
                == "https://example.com asks for: age over 18, from your PID. Share?")
        #expect(
            PresentationConsentText.question(origin: "https://e\u{1b}[2J.com", credentials: [])
                .hasPrefix("https://e?[2J.com asks for"))
        #expect(
            PresentationConsentText.question(
                origin: "https://example.com",
                credentials: [RequestedCredential(name: "PID", claims: ["age over 18"], available: false)])
                == "https://example.com asks for: age over 18, from your PID. "
                + "Nothing in your wallet matches: the request will be refused. Press Enter.")
    }
}
