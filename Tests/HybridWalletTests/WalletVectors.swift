import Foundation
import HybridCore
import HybridWallet

/// Reads the wallet's vector files (`$HYBRID_VECTORS_DIR/wallet`, else the repository's
/// `Tests/Vectors/wallet`; provenance in each file's `source`).
enum WalletVectors {
    static var directory: URL {
        if let override = ProcessInfo.processInfo.environment["HYBRID_VECTORS_DIR"] {
            return URL(fileURLWithPath: override).appendingPathComponent("wallet")
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Vectors/wallet")
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    static func json(_ name: String) throws -> JSONItem { try JSONItem.parse(bytes(name), limit: 1 << 20) }

    static func hex(_ item: JSONItem?) throws -> [UInt8] { try Hex.decode(item?.stringValue ?? "not hex") }
}

extension DCQLQuery {
    /// A query from a DCQL JSON text.
    init(text: String) throws { self = try DCQLQuery(json: JSONItem.parse(Array(text.utf8), limit: 1 << 16)) }
}
