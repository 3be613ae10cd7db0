import HybridCore

extension DigitEncodingError: VectorErrorClassifiable {
    package var vectorErrorClass: String {
        switch self {
        case .nonDigit: return "non-digit"
        case .invalidLength: return "length"
        case .chunkOutOfRange: return "range"
        }
    }
}
