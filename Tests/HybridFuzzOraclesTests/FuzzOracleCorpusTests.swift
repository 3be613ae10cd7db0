import Foundation
import HybridCore
@_spi(Fuzzing) import HybridFuzzOracles
import TestSeededRandom
import TestVectorFiles
import Testing

/// The fuzz targets' oracles on inputs we know: each target traps when its oracle fails (a value that
/// does not survive its own encoding), so a target that returns for every input passes. The inputs
/// are every hexadecimal field of the shared vectors (valid and invalid cases, given to every target
/// of HybridCore and HybridCTAP), the committed seed corpora of `Fuzz/Seeds`, and seeded random bytes.
@Suite struct FuzzOracleCorpusTests {
    private static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    private static var byteTargets: [String: @Sendable ([UInt8]) -> Void] {
        CoreFuzzEntryPoints.all.merging(CTAPFuzzEntryPoints.all) { first, _ in first }
    }

    @Test func everyVectorFieldPassesEveryOracle() throws {
        let inputs = try Self.vectorByteFields()
        #expect(inputs.count > 300, "the vectors gave \(inputs.count) byte strings")
        for (_, target) in Self.byteTargets.sorted(by: { $0.key < $1.key }) {
            for input in inputs { target(input) }
        }
    }

    @Test(arguments: ["hciEvent", "dbusMessage", "cxfDocument"])
    func committedSeedsPassTheirOracle(target name: String) throws {
        let target: @Sendable ([UInt8]) -> Void =
            switch name {
            case "hciEvent": BluetoothFuzzEntryPoints.hciEvent
            case "dbusMessage": BluetoothFuzzEntryPoints.dbusMessage
            default: AuthenticatorFuzzEntryPoints.cxfDocument
            }
        let folder = Self.repository.appendingPathComponent("Fuzz/Seeds/\(name)")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(!files.isEmpty)
        for file in files {
            target(Array(try Data(contentsOf: folder.appendingPathComponent(file))))
        }
    }

    @Test func seededRandomBytesPassEveryOracle() {
        var random = SeededRandom.forProperty()
        for _ in 0..<300 {
            let input = (0..<Int.random(in: 0...96, using: &random)).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
            for (_, target) in Self.byteTargets.sorted(by: { $0.key < $1.key }) { target(input) }
            BluetoothFuzzEntryPoints.hciEvent(input)
            BluetoothFuzzEntryPoints.dbusMessage(input)
            AuthenticatorFuzzEntryPoints.cxfDocument(input)
        }
    }

    /// Every string of even length made only of hexadecimal digits, anywhere in the vector files.
    private static func vectorByteFields() throws -> [[UInt8]] {
        let directory = VectorFiles.directory
        var found: Set<[UInt8]> = []
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) where name.hasSuffix(".json") {
            let data = try Data(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent(name))
            collect(try JSONSerialization.jsonObject(with: data), into: &found)
        }
        return found.sorted { $0.lexicographicallyPrecedes($1) }
    }

    private static func collect(_ value: Any, into found: inout Set<[UInt8]>) {
        switch value {
        case let text as String:
            if text.count.isMultiple(of: 2), let bytes = try? Hex.decode(text), !bytes.isEmpty { found.insert(bytes) }
        case let list as [Any]:
            for element in list { collect(element, into: &found) }
        case let object as [String: Any]:
            for element in object.values { collect(element, into: &found) }
        default:
            break
        }
    }
}
