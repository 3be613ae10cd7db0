import Foundation
import HybridConformance
import HybridCore
import Testing

/// ``OpenedFrame``'s padding judgement on the `crypter32` cases of the shared padding.json.
@Suite struct PaddingJudgementVectorTests {
    struct Case: Sendable, CustomStringConvertible {
        let name: String
        let valid: Bool
        let direction: String?
        let padded: [UInt8]
        var description: String { name }
    }

    static func cases() throws -> [Case] {
        let entries = try SharedVectorFile.cases("padding.json")
        return try entries.filter { $0["scheme"] as? String == "crypter32" }.map { entry in
            Case(
                name: entry["name"] as? String ?? "?", valid: entry["valid"] as? Bool ?? false,
                direction: entry["direction"] as? String,
                padded: try Hex.decode(entry["padded"] as? String ?? ""))
        }
    }

    @Test("padding our crypter emits (direction \"both\") passes; decode-only and invalid padding is reported")
    func vectors() throws {
        let cases = try Self.cases()
        #expect(cases.count >= 8)
        for vector in cases {
            let frame = OpenedFrame(sequence: 0, padded: vector.padded, construction: .new)
            if vector.valid && vector.direction == "both" {
                #expect(frame.paddingLengthProblem == nil, "\(vector)")
                #expect(frame.paddingIsZero, "\(vector)")
            } else {
                // Tolerated when decoding (not multiples of 32, or non-zero filler), or invalid.
                #expect(frame.paddingLengthProblem != nil || !frame.paddingIsZero, "\(vector)")
            }
        }
        let tolerated = try #require(cases.first { $0.name == "nonzero-padding-tolerated" })
        #expect(!OpenedFrame(sequence: 0, padded: tolerated.padded, construction: .new).paddingIsZero)
    }
}
