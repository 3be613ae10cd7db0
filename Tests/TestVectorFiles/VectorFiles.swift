import Foundation

/// Locates the shared vector files: `$HYBRID_VECTORS_DIR`, else the repository's `Tests/Vectors`.
package enum VectorFiles {
    package static var directory: String {
        if let override = ProcessInfo.processInfo.environment["HYBRID_VECTORS_DIR"] { return override }
        // #filePath = <repo>/Tests/TestVectorFiles/VectorFiles.swift
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return repo.appendingPathComponent("Tests/Vectors").path
    }

    package static func path(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }
}
