import HybridConformance
import TestVectorFiles
import Testing

extension VectorFiles {
    /// Runs every case of one shared vector file through the conformance runner and records each failure.
    static func expectAllPass(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let report = VectorRunner().runFile(atPath: path(name))
        for failure in report.failures { Issue.record("\(failure)", sourceLocation: sourceLocation) }
        for error in report.fileErrors { Issue.record("\(error)", sourceLocation: sourceLocation) }
        #expect(report.passed > 0, "no case of \(name) ran", sourceLocation: sourceLocation)
    }
}
