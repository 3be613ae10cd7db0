import HybridCore

extension DigitEncodingError: VectorErrorClassifiable {
    public var vectorErrorClass: String {
        switch self {
        case .nonDigit: return "non-digit"
        case .invalidLength: return "length"
        case .chunkOutOfRange: return "range"
        }
    }
}
