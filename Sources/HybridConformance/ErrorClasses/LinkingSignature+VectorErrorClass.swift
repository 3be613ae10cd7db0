import HybridCore

extension LinkingSignatureError: VectorErrorClassifiable {
    package var vectorErrorClass: String {
        switch self {
        case .invalidSignature: return "signature"
        }
    }
}
