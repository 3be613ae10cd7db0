/// Checks every case of one vector kind (SCHEMA.md §4) against the core.
///
/// A checker returns normally when the case passes and throws ``VectorMismatch`` saying what
/// differed when it does not. Invalid cases must be rejected with an acceptable error class.
public protocol VectorKindChecker: Sendable {
    /// The `kind` string of the files this checker runs.
    var kind: String { get }
    /// Runs one case.
    func check(_ testCase: VectorCase) throws(VectorMismatch)
}

/// A core error that maps to one of the error classes of SCHEMA.md §3.
public protocol VectorErrorClassifiable: Error {
    /// The SCHEMA.md §3 class, such as `length` or `aead`.
    var vectorErrorClass: String { get }
}

/// The SCHEMA.md §3 class of `error`, or a description of an unexpected error.
public func vectorErrorClass(of error: any Error) -> String {
    if let classified = error as? any VectorErrorClassifiable { return classified.vectorErrorClass }
    return "unclassified \(type(of: error))"
}
