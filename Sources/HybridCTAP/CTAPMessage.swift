import HybridCore

/// A CTAP2 request as it travels in a hybrid CTAP message (protocol.md §7.3): one command byte,
/// then the canonical CBOR parameter map (absent for commands without parameters).
public enum CTAPRequest: Hashable, Sendable {
    case makeCredential(MakeCredentialRequest)
    case getAssertion(GetAssertionRequest)
    case getInfo
    case getNextAssertion
    case selection
    /// Any other command (clientPIN, reset, credential management, unknown bytes), unparsed.
    case other(command: CTAPCommand, parameters: [UInt8])

    /// The command byte of this request.
    public var command: CTAPCommand {
        switch self {
        case .makeCredential: .makeCredential
        case .getAssertion: .getAssertion
        case .getInfo: .getInfo
        case .getNextAssertion: .getNextAssertion
        case .selection: .selection
        case .other(let command, _): command
        }
    }

    /// Command byte followed by the canonical parameters.
    public var encoded: [UInt8] {
        switch self {
        case .makeCredential(let request): request.encoded
        case .getAssertion(let request): request.encoded
        case .getInfo, .getNextAssertion, .selection: [command.rawValue]
        case .other(let command, let parameters): [command.rawValue] + parameters
        }
    }

    /// Parses a request. makeCredential and getAssertion need a strict, canonical parameter
    /// map; getInfo, getNextAssertion and selection must have no parameters. Other commands are
    /// returned as ``other(command:parameters:)`` without looking at their parameters.
    public init(bytes: some Collection<UInt8>) throws(CTAPError) {
        guard let first = bytes.first else { throw .emptyMessage }
        let command = CTAPCommand(rawValue: first)
        let parameters = Array(bytes.dropFirst())
        switch command {
        case .makeCredential:
            guard !parameters.isEmpty else { throw .missingParameter(field: "makeCredential") }
            self = .makeCredential(try MakeCredentialRequest(cbor: try CTAPResponse.decodeBody(parameters)))
        case .getAssertion:
            guard !parameters.isEmpty else { throw .missingParameter(field: "getAssertion") }
            self = .getAssertion(try GetAssertionRequest(cbor: try CTAPResponse.decodeBody(parameters)))
        case .getInfo, .getNextAssertion, .selection:
            guard parameters.isEmpty else { throw .unexpectedParameters(command: command) }
            self = command == .getInfo ? .getInfo : command == .selection ? .selection : .getNextAssertion
        default:
            self = .other(command: command, parameters: parameters)
        }
    }
}

/// Framing of CTAP2 responses: one status byte, then the canonical CBOR response map (success
/// with a body) or nothing (errors, and successes without a body such as selection).
public enum CTAPResponse {
    /// `status` followed by the canonical encoding of `body`, if any.
    public static func encode(status: CTAPStatusCode, body: CBORValue? = nil) -> [UInt8] {
        [status.rawValue] + (body.map(CBOREncoder.encode) ?? [])
    }

    /// The status byte and the body, which must be one strict canonical CBOR item when present.
    public static func decode(_ bytes: some Collection<UInt8>) throws(CTAPError) -> (
        status: CTAPStatusCode, body: CBORValue?
    ) {
        guard let first = bytes.first else { throw .emptyMessage }
        let rest = bytes.dropFirst()
        return (CTAPStatusCode(rawValue: first), rest.isEmpty ? nil : try decodeBody(rest))
    }

    /// The body of a success response; a non-OK status throws ``CTAPError/errorStatus(_:)``,
    /// a missing body ``CTAPError/missingParameter(field:)``.
    public static func successBody(_ bytes: some Collection<UInt8>) throws(CTAPError) -> CBORValue {
        let (status, body) = try decode(bytes)
        guard status.isSuccess else { throw .errorStatus(status) }
        guard let body else { throw .missingParameter(field: "response") }
        return body
    }

    /// Strictly decodes one CBOR item, mapping its error into ``CTAPError``.
    static func decodeBody(_ bytes: some Collection<UInt8>) throws(CTAPError) -> CBORValue {
        do { return try CBORDecoder.decode(bytes) } catch { throw .invalidCBOR(error) }
    }
}
