import HybridCore

extension DigitalCredentialEnvelopeError: VectorErrorClassifiable {
    package var vectorErrorClass: String {
        switch self {
        case .tooLarge: return "length"
        case .tooDeep, .malformedJSON: return "json"
        case .missingMember, .noRequests: return "missing"
        case .wrongType: return "type"
        case .unsupportedRequestType: return "request-type"
        }
    }
}
