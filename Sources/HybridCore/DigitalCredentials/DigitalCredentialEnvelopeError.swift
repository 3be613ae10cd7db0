/// Why a digital-credential envelope (message type 03, protocol.md §7.8) was refused.
public enum DigitalCredentialEnvelopeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The document is larger than `limit` bytes.
    case tooLarge(size: Int, limit: Int)
    /// Arrays and objects nest deeper than `limit`.
    case tooDeep(limit: Int)
    /// Not one strict UTF-8 JSON document (RFC 8259); `offset` is where reading stopped. Duplicate
    /// member names, lone surrogates and control characters in strings count as malformed.
    case malformedJSON(offset: Int)
    /// A required member is missing (`path` as in `request.digital.requests`).
    case missingMember(path: String)
    /// A member has the wrong JSON type.
    case wrongType(path: String)
    /// `requestType` is not `credential.get`, the one kind this implementation serves.
    case unsupportedRequestType(String)
    /// `requests` is empty.
    case noRequests

    /// One line for logs and users.
    public var description: String {
        switch self {
        case .tooDeep(let limit): "the JSON message nests deeper than \(limit) levels"
        case .malformedJSON(let offset): "not valid JSON (at byte \(offset))"
        case .tooLarge(let size, let limit): "the JSON message has \(size) bytes, more than \(limit)"
        case .missingMember(let path): "the JSON message lacks \(path)"
        case .wrongType(let path): "\(path) has the wrong JSON type"
        case .unsupportedRequestType(let type): "unsupported requestType \"\(type)\""
        case .noRequests: "the request lists no credential requests"
        }
    }
}
