import Foundation
import HybridCore

/// Reads fields of the shared vector files (`$HYBRID_VECTORS_DIR`, else the repository's
/// `Tests/Vectors`).
enum AuthenticatorVectors {
    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    static var directory: String {
        if let override = ProcessInfo.processInfo.environment["HYBRID_VECTORS_DIR"] { return override }
        // #filePath = <repo>/Tests/HybridAuthenticatorTests/AuthenticatorVectors.swift
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return repo.appendingPathComponent("Tests/Vectors").path
    }

    static func testCase(_ file: String, _ name: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + file))
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let cases = object["cases"] as? [[String: Any]],
            let found = cases.first(where: { $0["name"] as? String == name })
        else { throw Missing(description: "\(file): no case \(name)") }
        return found
    }

    static func hex(_ file: String, case name: String, key: String) throws -> [UInt8] {
        guard let text = try testCase(file, name)[key] as? String else {
            throw Missing(description: "\(file) \(name): no \(key)")
        }
        return try Hex.decode(text)
    }

    static func sessionFrame(_ name: String, index: Int) throws -> [UInt8] {
        guard let frames = try testCase("session.json", name)["frames"] as? [[String: Any]],
            let frame = frames.first(where: { $0["index"] as? Int == index }), let text = frame["plaintext"] as? String
        else { throw Missing(description: "session \(name): no frame \(index)") }
        return try Hex.decode(text)
    }
}
