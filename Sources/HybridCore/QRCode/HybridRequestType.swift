/// The kind of request a client announces in QR key 5 and in the client payload's key 3
/// (protocol.md §1.3, §5.2). Chromium: `FidoRequestType` with `RequestTypeToString` /
/// `RequestTypeFromString`.
public enum HybridRequestType: String, Sendable, Hashable, CaseIterable {
    /// `"ga"`: WebAuthn getAssertion. Also what an absent or unknown hint means.
    case getAssertion = "ga"
    /// `"mc"`: WebAuthn makeCredential.
    case makeCredential = "mc"
    /// `"dcp"`: digital-credential presentation.
    case digitalCredentialPresentation = "dcp"
    /// `"dci"`: digital-credential issuance.
    case digitalCredentialIssuance = "dci"

    /// The effective request type of a hint as sent: `"mc"`, `"dcp"` and `"dci"` map to their
    /// cases; anything else, including `nil` and the empty string, means getAssertion.
    public init(hint: String?) {
        self = hint.flatMap(Self.init(rawValue:)) ?? .getAssertion
    }

    /// The string written on the wire.
    public var hint: String { rawValue }
}
