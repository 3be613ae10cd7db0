import Foundation
import Testing

/// Reads the `cases` of a shared vector file: `$HYBRID_VECTORS_DIR`, else the repository's
/// `Tests/Vectors`.
enum SharedVectorFile {
    static func cases(_ name: String) throws -> [[String: Any]] {
        let directory: URL
        if let override = ProcessInfo.processInfo.environment["HYBRID_VECTORS_DIR"] {
            directory = URL(fileURLWithPath: override)
        } else {
            // #filePath = <repo>/Tests/HybridConformanceTests/Client/<this file>
            var repo = URL(fileURLWithPath: #filePath)
            for _ in 0..<4 { repo.deleteLastPathComponent() }
            directory = repo.appendingPathComponent("Tests/Vectors")
        }
        let data = try Data(contentsOf: directory.appendingPathComponent(name))
        let file = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(file["cases"] as? [[String: Any]])
    }
}
