import Foundation

/// Loads SCHEMA.md vector files for the tunnel tests: `$HYBRID_VECTORS_DIR`, or `../shared/vectors`
/// next to the repository root found by walking up from this file.
enum TunnelVectorFiles {
    struct Envelope<Case: Decodable>: Decodable {
        let kind: String
        let cases: [Case]
    }

    enum LoadError: Error, CustomStringConvertible {
        case directoryNotFound
        case wrongKind(expected: String, found: String)
        case badHex(String)
        var description: String {
            switch self {
            case .directoryNotFound: "vectors directory not found (set HYBRID_VECTORS_DIR)"
            case .wrongKind(let expected, let found): "expected kind \(expected), found \(found)"
            case .badHex(let text): "not lower-case hex: \(text)"
            }
        }
    }

    static func directory(filePath: String = #filePath) throws -> URL {
        if let override = ProcessInfo.processInfo.environment["HYBRID_VECTORS_DIR"] {
            return URL(fileURLWithPath: override, isDirectory: true)
        }
        var url = URL(fileURLWithPath: filePath).deletingLastPathComponent()
        for _ in 0..<8 {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
                return url.deletingLastPathComponent().appendingPathComponent("shared/vectors", isDirectory: true)
            }
            url = url.deletingLastPathComponent()
        }
        throw LoadError.directoryNotFound
    }

    /// Decodes `<kind>.json` and returns its cases.
    static func load<Case: Decodable>(_ kind: String, as: Case.Type = Case.self) throws -> [Case] {
        let data = try Data(contentsOf: directory().appendingPathComponent("\(kind).json"))
        let envelope = try JSONDecoder().decode(Envelope<Case>.self, from: data)
        guard envelope.kind == kind else { throw LoadError.wrongKind(expected: kind, found: envelope.kind) }
        return envelope.cases
    }

    /// Lower-case hex from a vector → bytes (vector files are trusted test input).
    static func bytes(_ hex: String) throws -> [UInt8] {
        var out: [UInt8] = []
        var index = hex.startIndex
        guard hex.count % 2 == 0 else { throw LoadError.badHex(hex) }
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            guard let byte = UInt8(hex[index..<next], radix: 16) else { throw LoadError.badHex(hex) }
            out.append(byte)
            index = next
        }
        return out
    }
}
