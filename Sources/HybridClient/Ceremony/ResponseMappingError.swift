/// Why a phone's CTAP2 answer cannot be handed to the relying party (the checks a browser makes).
public enum ResponseMappingError: Error, Hashable, Sendable {
    /// The authenticator data's rpIdHash is not SHA-256 of the ceremony's RP ID.
    case rpIDHashMismatch
    /// A makeCredential answer whose authenticator data carries no credential (AT flag clear).
    case missingAttestedCredentialData
    /// An assertion without a credential ID, where the allow list did not have exactly one entry.
    case missingCredentialID
    /// An assertion for a credential that is not in the (non-empty) allow list.
    case credentialNotAllowed
    /// A discoverable sign-in (empty allow list) whose assertion has no user handle.
    case missingUserHandle
    /// An assertion naming the user (`name` or `displayName`) without the UV flag.
    case userDetailsWithoutVerification
    /// An assertion reporting several credentials but not saying whose it is: hybrid has no
    /// getNextAssertion to ask for the others.
    case ambiguousAccount
    /// An assertion whose authenticator data carries attested credential data (AT flag).
    case attestedCredentialDataInAssertion
    /// An extension output (authenticator data or unsigned outputs) that was not requested or is
    /// malformed, or an extensions block that is not a map with text keys; the extension.
    case unexpectedExtension(String)
    /// A required extension output is missing (e.g. `largeBlob.supported` for `support: "required"`).
    case missingExtensionOutput(String)
}

extension ResponseMappingError: CustomStringConvertible {
    /// One line for a user.
    public var description: String {
        switch self {
        case .rpIDHashMismatch: "the authenticator answered for another relying party (rpIdHash mismatch)"
        case .missingAttestedCredentialData: "the authenticator returned no credential"
        case .missingCredentialID: "the assertion does not say which credential was used"
        case .credentialNotAllowed: "the assertion used a credential that was not requested"
        case .missingUserHandle: "the discoverable sign-in returned no user handle"
        case .userDetailsWithoutVerification: "the assertion names the user although the user was not verified"
        case .ambiguousAccount: "the authenticator reported several accounts without saying which one answered"
        case .attestedCredentialDataInAssertion: "the assertion carries attested credential data"
        case .unexpectedExtension(let name): "the answer carries an unrequested or malformed extension output (\(name))"
        case .missingExtensionOutput(let name): "the answer lacks the required extension output \(name)"
        }
    }
}
