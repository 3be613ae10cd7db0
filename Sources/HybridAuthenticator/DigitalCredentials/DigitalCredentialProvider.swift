/// One entry of a Digital Credentials request's `digital.requests` array: a presentation protocol
/// (for example `openid4vp-v1-unsigned`) and its request data, as the verifier's page passed them
/// to `navigator.credentials.get({digital})` (W3C Digital Credentials API).
package struct DigitalCredentialRequestEntry: Hashable, Sendable {
    /// The protocol identifier, for example `openid4vp-v1-unsigned` (OpenID4VP 1.0 Appendix A).
    package let protocolID: String
    /// The entry's `data` member as UTF-8 JSON.
    package let data: [UInt8]

    /// An entry of `protocolID` carrying `data` (UTF-8 JSON).
    package init(protocolID: String, data: [UInt8]) {
        self.protocolID = protocolID
        self.data = data
    }
}

/// What the phone answers to one digital-credential request.
package enum DigitalCredentialOutcome: Hashable, Sendable {
    /// A presentation: the protocol of the entry it answers and the response `data` as UTF-8 JSON
    /// (for OpenID4VP, an object with `vp_token`).
    case credential(protocolID: String, data: [UInt8])
    /// No presentation. The client sees only the wire error this maps to: a decline and the
    /// absence of a matching credential look the same to the verifier, so an error says nothing
    /// about which credentials the phone holds.
    case refused(DigitalCredentialRefusal)
}

/// Why no presentation was made, for the phone's own events and logs. The wire carries less
/// (see ``DigitalCredentialOutcome/refused(_:)``).
package enum DigitalCredentialRefusal: Hashable, Sendable {
    /// The user declined.
    case declined
    /// No stored credential satisfies the request.
    case noMatchingCredential
    /// No entry uses a protocol this wallet speaks.
    case unsupportedProtocol
    /// The request could not be parsed or violates its protocol; `reason` says how.
    case malformedRequest(reason: String)
}

/// The phone role's wallet as the hybrid session sees it: it takes the verifier's origin and the
/// request's entries, asks the user, and returns a presentation or a refusal. It never throws:
/// every failure is a ``DigitalCredentialOutcome/refused(_:)``.
package protocol DigitalCredentialProvider: Sendable {
    /// Answers one `credential.get` request from `origin` (the verifier page's origin, from the
    /// request envelope) for one of `entries`.
    func present(origin: String, entries: [DigitalCredentialRequestEntry]) async -> DigitalCredentialOutcome
}
