/// How the phone answered a digital-credential request, for its own events and summary. The client
/// sees less: a presentation, or one error for every refusal (protocol.md §7.8).
public enum DigitalCredentialAnswerKind: String, Sendable, Hashable, CaseIterable {
    /// The wallet made a presentation.
    case presented = "presented"
    /// The user declined.
    case declined = "declined"
    /// No stored credential satisfies the request.
    case noMatchingCredential = "no-matching-credential"
    /// No entry uses a protocol the wallet speaks.
    case unsupportedProtocol = "unsupported-protocol"
    /// The request (its envelope or an entry's data) could not be used.
    case malformedRequest = "malformed-request"
}

extension DigitalCredentialAnswerKind {
    /// The kind of a wallet's refusal.
    init(_ refusal: DigitalCredentialRefusal) {
        switch refusal {
        case .declined: self = .declined
        case .noMatchingCredential: self = .noMatchingCredential
        case .unsupportedProtocol: self = .unsupportedProtocol
        case .malformedRequest: self = .malformedRequest
        }
    }
}
