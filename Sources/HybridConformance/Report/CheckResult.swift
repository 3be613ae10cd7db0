/// How a check ended.
package enum CheckOutcome: String, Sendable, Codable, CaseIterable {
    /// The peer did what the rule says.
    case pass
    /// The peer broke a required rule.
    case fail
    /// The peer broke a recommendation, or did something legal that real peers do not.
    case warn
    /// The check could not run (an earlier step failed, or the mode was not asked to run it).
    case skip
}

/// A check, its outcome, and what was observed (shown in every report, so it says what the peer did).
package struct CheckResult: Sendable {
    package let check: ConformanceCheck
    package let outcome: CheckOutcome
    /// What the peer did, in a line: "echoed \"fido.cable\"", "status 200, expected 404".
    package let observed: String

    package init(_ check: ConformanceCheck, _ outcome: CheckOutcome, observed: String) {
        self.check = check
        self.outcome = outcome
        self.observed = observed
    }
}
