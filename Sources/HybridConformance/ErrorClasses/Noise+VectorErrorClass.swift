import HybridCore

extension HandshakeError: VectorErrorClassifiable {
    public var vectorErrorClass: String {
        switch self {
        case .invalidMessageLength: return "length"
        case .invalidPoint: return "point"
        case .authenticationFailed: return "aead"
        case .nonEmptyPayload: return "payload"
        }
    }
}
