import HybridAuthenticator

/// The wallet of a phone that holds no identity credentials: it answers every digital-credential
/// request (a `dcp` QR code) with a refusal, which the client sees as the one error answer
/// (protocol.md §7.8). The identity-credential store replaces it.
struct EmptyWallet: DigitalCredentialProvider {
    func present(origin: String, entries: [DigitalCredentialRequestEntry]) async -> DigitalCredentialOutcome {
        .refused(.noMatchingCredential)
    }
}
