/// Why an origin or an RP ID was rejected, mirroring the browser's checks before a WebAuthn call
/// (WebAuthn L3 §5.1.3 step 7–8 and §5.1.4.1, HTML "is a registrable domain suffix of or is equal to").
public enum OriginError: Error, Hashable, Sendable {
    /// The origin is not `scheme://host[:port]` (optionally with a trailing `/`); the input.
    case malformedOrigin(String)
    /// The origin's host is not an ASCII domain name or IP literal (IDN hosts must be given in
    /// punycode, `xn--…`); the host.
    case unsupportedHost(String)
    /// The origin is neither `https` nor `http` on a loopback host; the origin.
    case insecureOrigin(String)
    /// The RP ID is not a lower-case ASCII domain name or IP address; the RP ID.
    case malformedRPID(String)
    /// The RP ID is a public suffix (`com`, `co.uk`, `github.io`, …), which no site may claim.
    case rpIDIsPublicSuffix(String)
    /// The RP ID is neither the origin's host nor a registrable domain suffix of it (IP hosts only
    /// match themselves).
    case rpIDNotAllowedForOrigin(rpID: String, host: String)
}

extension OriginError: CustomStringConvertible {
    /// One line for a user.
    public var description: String {
        switch self {
        case .malformedOrigin(let text): "\"\(text)\" is not an origin (expected https://host[:port])"
        case .unsupportedHost(let host): "host \"\(host)\" is not supported (use an ASCII or punycode name)"
        case .insecureOrigin(let text): "origin \(text) is not secure: use https (http only for localhost)"
        case .malformedRPID(let rpID): "RP ID \"\(rpID)\" is not a valid lower-case domain name"
        case .rpIDIsPublicSuffix(let rpID): "RP ID \"\(rpID)\" is a public suffix and cannot be claimed"
        case .rpIDNotAllowedForOrigin(let rpID, let host):
            "RP ID \"\(rpID)\" is not \(host) or a registrable suffix of it"
        }
    }
}
