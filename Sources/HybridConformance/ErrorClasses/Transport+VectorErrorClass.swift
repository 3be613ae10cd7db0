import HybridCore

extension TransportError: VectorErrorClassifiable {
    public var vectorErrorClass: String {
        switch self {
        case .sequenceLimitReached: return "range"
        case .authenticationFailed: return "aead"
        case .invalidPadding: return "padding"
        }
    }
}
