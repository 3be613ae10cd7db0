import HybridCore

extension CBORError: VectorErrorClassifiable {
    public var vectorErrorClass: String { "cbor" }
}
