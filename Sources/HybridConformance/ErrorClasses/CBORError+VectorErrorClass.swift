import HybridCore

extension CBORError: VectorErrorClassifiable {
    package var vectorErrorClass: String { "cbor" }
}
