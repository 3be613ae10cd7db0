extension VectorRunner {
    /// Every vector kind this package checks, one line per kind.
    public static let allCheckers: [any VectorKindChecker] = [
        CBORChecker(),
        RPIDHashChecker(),
    ]
}
