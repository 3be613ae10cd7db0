import Foundation
import TestVectorFiles

/// Reads the shared vector files (``VectorFiles``).
enum SharedVectors {
    /// The distinct `url` members of the valid cases of qr.json (real `FIDO:/` strings from
    /// Chromium's tests and the synthetic sessions).
    static func qrURLs() throws -> [String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: VectorFiles.path("qr.json")))
        guard let file = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let cases = file["cases"] as? [[String: Any]]
        else { throw ExternalTool.Failure(description: "qr.json has no cases") }
        var seen = Set<String>()
        return cases.compactMap { entry in
            guard entry["valid"] as? Bool == true, let url = entry["url"] as? String, url.hasPrefix("FIDO:/"),
                seen.insert(url).inserted
            else { return nil }
            return url
        }
    }
}
