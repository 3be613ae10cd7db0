import HybridCore

extension AdvertError: VectorErrorClassifiable {
    package var vectorErrorClass: String {
        switch self {
        case .invalidLength: return "length"
        case .authenticationFailed: return "tag"
        case .reservedByteNonZero: return "reserved"
        case .unassignedDomain: return "domain"
        }
    }
}
