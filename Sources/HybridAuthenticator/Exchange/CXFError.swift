/// Why a Credential Exchange Format document was refused. Every case that concerns one member
/// names it by its path in the document (`accounts[0].items[2].credentials[0].key`), so a person
/// can find it; nothing here repeats a secret value.
package enum CXFError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The document is larger than the reader's limit, in bytes.
    case tooLarge(limit: Int)
    /// The bytes are not one JSON object (bad syntax, trailing data after it, not UTF-8), or a
    /// member has the wrong JSON type; `field` is empty for the document as a whole.
    case malformedJSON(field: String, reason: String)
    /// A member the specification requires is absent.
    case missingMember(field: String)
    /// `version.major` is not 1 (CXF 1.0 "Version": a different major version is an incompatible format).
    case unsupportedVersion(major: Int, minor: Int)
    /// A byte-string member is not base64url (RFC 4648 §5, unpadded, canonical).
    case invalidBase64URL(field: String)
    /// A byte string or number is outside the range the specification or WebAuthn allows.
    case invalidLength(field: String, count: Int, allowed: ClosedRange<Int>)
    /// An RP ID that is not a domain name (lower-case ASCII labels of letters, digits and hyphens).
    case invalidRelyingPartyID(field: String)
    /// `key` is not a DER PKCS#8 private key (RFC 5958), or its P-256 key does not parse.
    case invalidPrivateKey(field: String, reason: String)
    /// `key` is a PKCS#8 key of an algorithm this authenticator does not sign with (it signs
    /// ES256 only); `algorithm` names it (an OID or a common name).
    case unsupportedKeyAlgorithm(field: String, algorithm: String)
    /// `hmacCredentials.algorithm` is not `hmac-sha256`.
    case unsupportedHMACAlgorithm(field: String, algorithm: String)
    /// A second passkey with the same credential ID, or for the same account (RP ID and user
    /// handle), in one document.
    case duplicateCredential(field: String)

    /// The path of the member at fault, when there is one.
    package var field: String? {
        switch self {
        case .tooLarge, .unsupportedVersion: nil
        case .malformedJSON(let field, _): field.isEmpty ? nil : field
        case .missingMember(let field), .invalidBase64URL(let field), .invalidLength(let field, _, _),
            .invalidRelyingPartyID(let field), .invalidPrivateKey(let field, _),
            .unsupportedKeyAlgorithm(let field, _), .unsupportedHMACAlgorithm(let field, _),
            .duplicateCredential(let field):
            field
        }
    }

    package var description: String {
        switch self {
        case .tooLarge(let limit): "the document is larger than \(limit) bytes"
        case .malformedJSON(let field, let reason):
            field.isEmpty ? "not a JSON document: \(reason)" : "\(field): \(reason)"
        case .missingMember(let field): "\(field) is missing"
        case .unsupportedVersion(let major, let minor):
            "version \(major).\(minor) is not CXF 1.x (only major version 1 is read)"
        case .invalidBase64URL(let field): "\(field) is not base64url"
        case .invalidLength(let field, let count, let allowed):
            "\(field) has length \(count), outside \(allowed.lowerBound)...\(allowed.upperBound)"
        case .invalidRelyingPartyID(let field): "\(field) is not a domain name"
        case .invalidPrivateKey(let field, let reason): "\(field) is not a PKCS#8 private key (\(reason))"
        case .unsupportedKeyAlgorithm(let field, let algorithm):
            "\(field) is a \(algorithm) key; this authenticator signs with ES256 (P-256) only"
        case .unsupportedHMACAlgorithm(let field, let algorithm):
            "\(field) is \(algorithm); only hmac-sha256 is known"
        case .duplicateCredential(let field): "\(field) repeats a passkey already in the document"
        }
    }
}
