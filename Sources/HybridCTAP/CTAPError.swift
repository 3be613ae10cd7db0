import HybridCore

/// Why CTAP2 bytes (a request, a response, authenticator data or a COSE key) are not acceptable.
///
/// `field` values are dotted paths such as `"makeCredential.user.id"`, for diagnostics only.
/// ``statusCode`` gives the status an authenticator answers with when a request fails this way.
public enum CTAPError: Error, Hashable, Sendable {
    /// The message is empty: there is no command or status byte.
    case emptyMessage
    /// The CBOR part is not one strict, canonical CBOR item.
    case invalidCBOR(CBORError)
    /// A field, or the top-level item, has the wrong CBOR type.
    case unexpectedType(field: String)
    /// A required field is absent.
    case missingParameter(field: String)
    /// A byte or text field has a length the format does not allow (e.g. a 31-byte clientDataHash).
    case invalidLength(field: String)
    /// A field has a value the format does not allow (out of range, not a curve point, …).
    case invalidParameter(field: String)
    /// A COSE key or credential parameter names an algorithm or key type other than ES256 / EC2 P-256.
    case unsupportedAlgorithm(field: String)
    /// Authenticator data ends before its fixed part or a part its flags announce.
    case authenticatorDataTruncated
    /// Bytes follow the last part of authenticator data that its flags announce.
    case authenticatorDataTrailingBytes
    /// A command that takes no parameters (getInfo, getNextAssertion, selection) carried some.
    case unexpectedParameters(command: CTAPCommand)
    /// A response's status byte is not `CTAP2_OK`.
    case errorStatus(CTAPStatusCode)

    /// The status an authenticator returns for a request that fails with this error.
    public var statusCode: CTAPStatusCode {
        switch self {
        case .emptyMessage, .invalidLength, .unexpectedParameters, .authenticatorDataTruncated,
            .authenticatorDataTrailingBytes:
            .invalidLength
        case .invalidCBOR: .invalidCBOR
        case .unexpectedType: .cborUnexpectedType
        case .missingParameter: .missingParameter
        case .invalidParameter: .invalidParameter
        case .unsupportedAlgorithm: .unsupportedAlgorithm
        case .errorStatus(let status): status
        }
    }
}
