import HybridCore

extension TransportError: VectorErrorClassifiable {
    package var vectorErrorClass: String {
        switch self {
        case .sequenceLimitReached: return "range"
        case .authenticationFailed: return "aead"
        case .invalidPadding: return "padding"
        }
    }
}
