/// The results of one run of a live conformance mode, in the order the checks ran.
package struct ConformanceReport: Sendable {
    /// The mode that ran: `relay`, `phone` or `client`.
    package let mode: String
    /// What was tested, e.g. the relay's URL or "client that showed the QR code".
    package let subject: String
    package private(set) var results: [CheckResult] = []

    package init(mode: String, subject: String) {
        self.mode = mode
        self.subject = subject
    }

    /// Records a result. A failed recommendation (`check.required == false`) is recorded as `warn`.
    package mutating func record(_ check: ConformanceCheck, _ outcome: CheckOutcome, observed: String) {
        let effective = (outcome == .fail && !check.required) ? .warn : outcome
        results.append(CheckResult(check, effective, observed: observed))
    }

    /// Records `pass` when `holds`, otherwise `fail` (or `warn` for a recommendation).
    package mutating func expect(_ check: ConformanceCheck, _ holds: Bool, observed: String) {
        record(check, holds ? .pass : .fail, observed: observed)
    }

    package mutating func pass(_ check: ConformanceCheck, observed: String) { record(check, .pass, observed: observed) }
    package mutating func fail(_ check: ConformanceCheck, observed: String) { record(check, .fail, observed: observed) }
    package mutating func skip(_ check: ConformanceCheck, because reason: String) {
        record(check, .skip, observed: reason)
    }

    /// Appends another report's results (a mode made of several phases).
    package mutating func append(contentsOf other: ConformanceReport) { results += other.results }

    /// The results with the given outcome.
    package func results(_ outcome: CheckOutcome) -> [CheckResult] { results.filter { $0.outcome == outcome } }

    /// How many results have each outcome.
    package func count(_ outcome: CheckOutcome) -> Int { results.lazy.filter { $0.outcome == outcome }.count }

    /// The latest result for a check ID, if it ran.
    package func result(for id: String) -> CheckResult? { results.last { $0.check.id == id } }

    /// How many results are of required checks.
    package var requiredCount: Int { results.lazy.filter(\.check.required).count }

    /// True when no check failed (warnings and skips do not fail a run).
    package var succeeded: Bool { !results.contains { $0.outcome == .fail } }
}
