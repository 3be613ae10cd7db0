import HybridCore

extension LinkingSignatureError: VectorErrorClassifiable {
    public var vectorErrorClass: String {
        switch self {
        case .invalidSignature: return "signature"
        }
    }
}
