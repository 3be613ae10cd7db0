import Foundation

extension ConformanceReport {
    private struct Document: Encodable {
        struct Entry: Encodable {
            let id: String
            let title: String
            let reference: String
            let source: String
            let required: Bool
            let result: CheckOutcome
            let observed: String
        }
        struct Counts: Encodable {
            let required: Int
            let pass: Int
            let fail: Int
            let warn: Int
            let skip: Int
        }
        let mode: String
        let subject: String
        let succeeded: Bool
        let summary: String
        let counts: Counts
        let checks: [Entry]
    }

    /// Machine output: `{"mode", "subject", "succeeded", "summary", "counts": {required, pass, fail,
    /// warn, skip}, "checks": [...]}`, each check with `id`, `title`, `reference`, `source`,
    /// `required`, `result` and `observed`.
    package func jsonData() throws -> Data {
        let document = Document(
            mode: mode, subject: subject, succeeded: succeeded, summary: summaryLine,
            counts: .init(
                required: requiredCount, pass: count(.pass), fail: count(.fail), warn: count(.warn),
                skip: count(.skip)),
            checks: results.map {
                .init(
                    id: $0.check.id, title: $0.check.title, reference: $0.check.reference, source: $0.check.source,
                    required: $0.check.required, result: $0.outcome, observed: $0.observed)
            }
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(document)
    }
}
