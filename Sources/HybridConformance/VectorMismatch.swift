import HybridCore

/// Why a case failed: the line the runner prints after the case's name.
package struct VectorMismatch: Error, Sendable, CustomStringConvertible {
    package let description: String

    package init(_ description: String) { self.description = description }

    /// A field whose value differs from the expected one.
    package static func field(_ name: String, expected: String, got: String) -> VectorMismatch {
        VectorMismatch("\(name): expected \(expected), got \(got)")
    }
}

/// Helpers shared by the kind checkers.
package enum Expect {
    /// Fails unless `got == expected`.
    package static func equal<T: Equatable>(
        _ name: String, _ got: T, _ expected: T, show: (T) -> String = { "\($0)" }
    ) throws(VectorMismatch) {
        guard got == expected else { throw .field(name, expected: show(expected), got: show(got)) }
    }

    /// Fails unless the byte strings are equal; shows both as hex.
    package static func bytes(_ name: String, _ got: [UInt8], _ expected: [UInt8]) throws(VectorMismatch) {
        try equal(name, got, expected, show: { Hex.encode($0) })
    }

    /// Runs `operation`, which must succeed; any thrown error becomes a mismatch naming its class.
    package static func success<T>(
        _ what: String, classify: (any Error) -> String, _ operation: () throws -> T
    ) throws(VectorMismatch) -> T {
        do {
            return try operation()
        } catch let mismatch as VectorMismatch {
            throw mismatch
        } catch {
            throw VectorMismatch("\(what) failed with \(classify(error)) (\(error))")
        }
    }

    /// Runs `operation`, which must throw an error whose class is one of the case's acceptable ones.
    package static func failure(
        _ testCase: VectorCase, _ what: String, classify: (any Error) -> String, _ operation: () throws -> Void
    ) throws(VectorMismatch) {
        do {
            try operation()
        } catch let mismatch as VectorMismatch {
            throw mismatch
        } catch {
            let errorClass = classify(error)
            guard testCase.acceptableErrors.contains(errorClass) else {
                throw .field(
                    "\(what) error", expected: testCase.acceptableErrors.joined(separator: "|"),
                    got: "\(errorClass) (\(error))")
            }
            return
        }
        throw .field(
            "\(what)", expected: "rejection (\(testCase.acceptableErrors.joined(separator: "|")))", got: "success")
    }
}
