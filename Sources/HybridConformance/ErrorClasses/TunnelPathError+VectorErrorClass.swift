import HybridCore

extension TunnelPathError: VectorErrorClassifiable {
    public var vectorErrorClass: String { "path" }
}
