/// The time bounds the `--slow` checks judge against; defaults from protocol.md §5.4 and §7.5.
package struct RelayTimingLimits: Sendable, Equatable {
    /// A pending tunnel must stay joinable at least this long. Google answers 418 about 30 s after
    /// `/new`; a little under that, so Google itself passes.
    package var pendingMinimum: Duration = .seconds(25)
    /// A pending tunnel should be closed within this (webauthn-rs's TTL is 120 s).
    package var pendingMaximum: Duration = .seconds(180)
    /// A silent paired tunnel must stay open at least this long: Chromium's test phone sends a
    /// late update 10 s after the client's shutdown (§7.5).
    package var idleMinimum: Duration = .seconds(10)
    /// A silent paired tunnel should be closed within this (Google: about 30 s after the client
    /// connects; the Chromium client gives up 3 minutes after its shutdown).
    package var idleMaximum: Duration = .seconds(330)

    package init() {}
}
