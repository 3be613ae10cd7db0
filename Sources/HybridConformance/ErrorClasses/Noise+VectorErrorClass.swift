import HybridCore

extension HandshakeError: VectorErrorClassifiable {
    package var vectorErrorClass: String {
        switch self {
        case .invalidMessageLength: return "length"
        case .invalidPoint: return "point"
        case .authenticationFailed: return "aead"
        case .nonEmptyPayload: return "payload"
        }
    }
}
