import Foundation
import HybridConformance
import Testing

/// Locates the shared vector files: `$HYBRID_VECTORS_DIR`, else the repository's `Tests/Vectors`.
enum VectorFiles {
    static var directory: String {
        if let override = ProcessInfo.processInfo.environment["HYBRID_VECTORS_DIR"] { return override }
        // #filePath = <repo>/Tests/HybridCoreTests/VectorFiles.swift
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return repo.appendingPathComponent("Tests/Vectors").path
    }

    static func path(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }

    /// Runs every case of one shared vector file through the conformance runner and records each failure.
    static func expectAllPass(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let report = VectorRunner().runFile(atPath: path(name))
        for failure in report.failures { Issue.record("\(failure)", sourceLocation: sourceLocation) }
        for error in report.fileErrors { Issue.record("\(error)", sourceLocation: sourceLocation) }
        #expect(report.passed > 0, "no case of \(name) ran", sourceLocation: sourceLocation)
    }
}
