import Foundation
import TestVectorFiles
import Testing

/// Reads the `cases` of a shared vector file (``VectorFiles``).
enum SharedVectorFile {
    static func cases(_ name: String) throws -> [[String: Any]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: VectorFiles.path(name)))
        let file = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(file["cases"] as? [[String: Any]])
    }
}
