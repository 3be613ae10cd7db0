import HybridAuthenticator

/// The conformance phone's wallet: it answers a client's JSON (digital-credential) request with a
/// fixed presentation for the first entry's protocol, so that the client's whole JSON path runs
/// (protocol.md §7.8). The phone judges the client, not a credential: the answer's `data` is a
/// placeholder `vp_token` that no verifier would accept, and it holds nothing about anyone.
struct ConformanceWallet: DigitalCredentialProvider {
    /// The answer's `data`.
    static let placeholder = Array(#"{"vp_token":{"conformance":["placeholder presentation"]}}"#.utf8)

    func present(origin: String, entries: [DigitalCredentialRequestEntry]) async -> DigitalCredentialOutcome {
        guard let entry = entries.first else { return .refused(.malformedRequest(reason: "no entries")) }
        return .credential(protocolID: entry.protocolID, data: Self.placeholder)
    }
}
