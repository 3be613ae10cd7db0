/// Checks every case of one vector kind (SCHEMA.md §4) against the core.
///
/// A checker returns normally when the case passes and throws ``VectorMismatch`` saying what
/// differed when it does not. Invalid cases must be rejected with an acceptable error class.
package protocol VectorKindChecker: Sendable {
    /// The `kind` string of the files this checker runs.
    var kind: String { get }
    /// Whether the kind has cases that must be rejected. SCHEMA.md defines some kinds as always
    /// valid (a derivation cannot fail); a case of theirs marked invalid is a mistake in the file,
    /// which the runner reports instead of passing it.
    var definesInvalidCases: Bool { get }
    /// Runs one case.
    func check(_ testCase: VectorCase) throws(VectorMismatch)
}

extension VectorKindChecker {
    package var definesInvalidCases: Bool { true }
}

/// A core error that maps to one of the error classes of SCHEMA.md §3.
package protocol VectorErrorClassifiable: Error {
    /// The SCHEMA.md §3 class, such as `length` or `aead`.
    var vectorErrorClass: String { get }
}

/// The SCHEMA.md §3 class of `error`, or a description of an unexpected error.
package func vectorErrorClass(of error: any Error) -> String {
    if let classified = error as? any VectorErrorClassifiable { return classified.vectorErrorClass }
    return "unclassified \(type(of: error))"
}
