/// What a parser gave for random inputs: every input must give a value or the parser's typed error.
/// The tally checks that both kinds were seen, so that a test cannot pass by never reaching a parser.
package struct ParseTally {
    package var values = 0
    package var errors = 0

    package init() {}

    /// Parses with `parse`, which can throw only `errorType` (the compiler checks it); a value is
    /// checked by `check`, an error is counted.
    @discardableResult
    package mutating func record<T, E: Error>(
        _ errorType: E.Type, _ parse: () throws(E) -> T, check: (T) -> Void = { _ in }
    ) -> T? {
        switch Result(catching: parse) {
        case .success(let value):
            values += 1
            check(value)
            return value
        case .failure:
            errors += 1
            return nil
        }
    }
}
