import HybridCore

extension HybridMessageError: VectorErrorClassifiable {
    package var vectorErrorClass: String {
        switch self {
        case .emptyFrame, .invalidLength: return "length"
        case .unknownMessageType: return "message-type"
        case .cbor, .invalidHex: return "cbor"
        case .notAMap, .wrongType: return "type"
        case .missingKey: return "missing"
        case .invalidPublicKey: return "point"
        case .invalidSignature: return "signature"
        case .invalidPadding: return "padding"
        }
    }
}
