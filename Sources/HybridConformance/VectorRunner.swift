import Foundation

/// Loads vector files in the SCHEMA.md format and runs every case, including `bundle` files.
package struct VectorRunner: Sendable {
    private let checkers: [String: any VectorKindChecker]

    /// A runner over the given checkers (by default every kind this package implements).
    package init(checkers: [any VectorKindChecker] = VectorRunner.allCheckers) {
        var byKind: [String: any VectorKindChecker] = [:]
        for checker in checkers { byKind[checker.kind] = checker }
        self.checkers = byKind
    }

    /// The kinds this runner can check.
    package var kinds: [String] { checkers.keys.sorted() }

    /// Runs every `.json` file named by `paths`; a directory contributes its `.json` files.
    package func run(paths: [String]) -> VectorReport {
        var report = VectorReport()
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                report.fileErrors.append("\(path): no such file or directory")
                continue
            }
            if isDirectory.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
                for name in names.sorted() where name.hasSuffix(".json") {
                    report.merge(runFile(atPath: (path as NSString).appendingPathComponent(name)))
                }
            } else {
                report.merge(runFile(atPath: path))
            }
        }
        return report
    }

    /// Runs one file.
    package func runFile(atPath path: String) -> VectorReport {
        let label = (path as NSString).lastPathComponent
        guard let data = FileManager.default.contents(atPath: path) else {
            return VectorReport(fileErrors: ["\(label): cannot read"])
        }
        do {
            return try run(document: JSONValue.parse(data), label: label)
        } catch let mismatch as VectorMismatch {
            return VectorReport(fileErrors: ["\(label): \(mismatch)"])
        } catch {
            return VectorReport(fileErrors: ["\(label): not JSON (\(error))"])
        }
    }

    /// Runs a parsed vector file (SCHEMA.md §1) or a bundle (§5).
    package func run(document: JSONValue, label: String) throws(VectorMismatch) -> VectorReport {
        guard case .object(let file) = document,
            case .string(let kind)? = file["kind"],
            case .array(let cases)? = file["cases"], !cases.isEmpty
        else { throw VectorMismatch("not a vector file (needs kind and a non-empty cases array)") }

        var report = VectorReport()
        if kind == "bundle" {
            for inner in cases {
                var name = "?"
                if case .object(let innerFile) = inner, case .string(let innerName)? = innerFile["name"] {
                    name = innerName
                }
                do {
                    report.merge(try run(document: inner, label: "\(label)/\(name)"))
                } catch {
                    report.fileErrors.append("\(label)/\(name): \(error)")
                }
            }
            return report
        }
        guard let checker = checkers[kind] else { throw VectorMismatch("unknown kind \"\(kind)\"") }
        for (index, caseValue) in cases.enumerated() {
            do {
                let testCase = try VectorCase(caseValue)
                guard testCase.valid || checker.definesInvalidCases else {
                    report.failures.append(
                        VectorFailure(
                            file: label, name: testCase.name, reason: "\(kind) cases are always valid (SCHEMA.md §4)"))
                    continue
                }
                do {
                    try checker.check(testCase)
                    report.passed += 1
                } catch {
                    report.failures.append(VectorFailure(file: label, name: testCase.name, reason: error.description))
                }
            } catch {
                report.failures.append(VectorFailure(file: label, name: "#\(index)", reason: error.description))
            }
        }
        return report
    }
}

/// One failing case.
package struct VectorFailure: Sendable, CustomStringConvertible {
    package let file: String
    package let name: String
    package let reason: String

    package var description: String { "FAIL \(file) \(name): \(reason)" }
}

/// The outcome of a run.
package struct VectorReport: Sendable {
    package var passed = 0
    package var failures: [VectorFailure] = []
    /// Files or kinds that could not be read at all.
    package var fileErrors: [String] = []

    package var failed: Int { failures.count }
    /// Whether every case passed and every file was read.
    package var succeeded: Bool { failures.isEmpty && fileErrors.isEmpty }

    mutating func merge(_ other: VectorReport) {
        passed += other.passed
        failures += other.failures
        fileErrors += other.fileErrors
    }
}
