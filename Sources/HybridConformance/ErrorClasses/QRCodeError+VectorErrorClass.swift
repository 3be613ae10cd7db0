import HybridCore

extension QRCodeError: VectorErrorClassifiable {
    package var vectorErrorClass: String {
        switch self {
        case .invalidPrefix: return "prefix"
        case .digits(let error): return error.vectorErrorClass
        case .cbor: return "cbor"
        case .notAMap, .wrongType: return "type"
        case .missingKey: return "missing"
        case .invalidSecretLength, .invalidPublicKeyLength: return "length"
        case .invalidPublicKey: return "point"
        }
    }
}
