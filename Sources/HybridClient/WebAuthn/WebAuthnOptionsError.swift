/// Why a WebAuthn options document (PublicKeyCredentialCreationOptionsJSON or
/// PublicKeyCredentialRequestOptionsJSON) was rejected.
///
/// Field paths are dotted JSON paths as written in the input, e.g. `user.id`,
/// `excludeCredentials[2].id` or `publicKey.challenge` when the `{"publicKey": …}` wrapper is used.
public enum WebAuthnOptionsError: Error, Hashable, Sendable {
    /// The input is not valid JSON.
    case malformedJSON
    /// The top-level JSON value (or the value of `publicKey`) is not an object.
    case notAnObject
    /// A required member is absent (or `null`).
    case missingField(String)
    /// A member has the wrong JSON type (e.g. a number where a string is required).
    case wrongType(String)
    /// A member that must be base64url (no padding, `-` and `_`) is not.
    case invalidBase64URL(String)
    /// `user.id` is not between 1 and 64 bytes long (WebAuthn L3 §5.1.3); the actual length.
    case userIDLength(Int)
    /// `pubKeyCredParams` is not empty but names no algorithm of type `public-key`.
    case noSupportedAlgorithm
    /// A numeric member is out of range (e.g. a negative or fractional `timeout`).
    case valueOutOfRange(String)
    /// An extension input a browser refuses with `NotSupportedError` (e.g. `prf.evalByCredential` in
    /// `create()`, an inconsistent credential protection policy); the reason.
    case unsupportedExtensionInput(String)
    /// An extension input a browser refuses with `SyntaxError` (e.g. an `evalByCredential` key that
    /// names no allowed credential); the reason.
    case invalidExtensionInput(String)
}

extension WebAuthnOptionsError: CustomStringConvertible {
    /// One line for a user.
    public var description: String {
        switch self {
        case .malformedJSON: "the options are not valid JSON"
        case .notAnObject: "the options must be a JSON object"
        case .missingField(let path): "required member \(path) is missing"
        case .wrongType(let path): "member \(path) has the wrong JSON type"
        case .invalidBase64URL(let path): "member \(path) is not valid base64url"
        case .userIDLength(let length): "user.id must be 1 to 64 bytes long, got \(length)"
        case .noSupportedAlgorithm: "pubKeyCredParams lists no credential type \"public-key\""
        case .valueOutOfRange(let path): "member \(path) is out of range"
        case .unsupportedExtensionInput(let reason): "unsupported extension input: \(reason)"
        case .invalidExtensionInput(let reason): "invalid extension input: \(reason)"
        }
    }
}
