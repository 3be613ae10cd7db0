import HybridCore

extension TunnelPathError: VectorErrorClassifiable {
    package var vectorErrorClass: String { "path" }
}
