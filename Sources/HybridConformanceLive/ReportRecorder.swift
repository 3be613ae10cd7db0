import HybridConformance
import Synchronization

/// Collects check results from concurrent tasks of a live run (a relay probe, a tunnel callback),
/// in the order they are recorded.
package final class ReportRecorder: Sendable {
    private let report: Mutex<ConformanceReport>

    package init(mode: String, subject: String) {
        report = Mutex(ConformanceReport(mode: mode, subject: subject))
    }

    package func record(_ check: ConformanceCheck, _ outcome: CheckOutcome, observed: String) {
        report.withLock { $0.record(check, outcome, observed: observed) }
    }

    package func expect(_ check: ConformanceCheck, _ holds: Bool, observed: String) {
        report.withLock { $0.expect(check, holds, observed: observed) }
    }

    package func skip(_ check: ConformanceCheck, because reason: String) {
        report.withLock { $0.skip(check, because: reason) }
    }

    /// Whether a check has already been recorded (a check that ran in an earlier phase is not skipped later).
    package func hasResult(for id: String) -> Bool { report.withLock { $0.result(for: id) != nil } }

    /// The report so far.
    package var snapshot: ConformanceReport { report.withLock { $0 } }
}
