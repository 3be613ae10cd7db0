import Foundation
import HybridAuthenticator
import HybridBluetooth
import HybridConformance
import HybridCore
import HybridTransport
import Logging
import Synchronization

/// `hybrid-conformance phone`: acts as a strict phone for the client under test. It judges the
/// QR code, then runs the authenticator role's own ``AuthenticatorRunner`` (tunnel, advert,
/// handshake, CTAP) with a ``ConformancePhoneTap`` that shows every client message to a
/// ``ClientConductJudge`` and applies the ``PhoneProfile`` and the ``PhoneFault``, if any.
package struct PhoneConformanceRun: Sendable {
    /// The check that says whether the session completed under `profile`.
    package static func completionCheck(for profile: PhoneProfile) -> ConformanceCheck {
        if profile == .strict { return PhoneChecks.sessionCompleted }
        return profile.isCurrent ? PhoneChecks.profileTolerated : PhoneChecks.legacyProfileTolerated
    }

    package var runnerOptions: AuthenticatorRunner.Options
    package var profile: PhoneProfile = .strict
    package var fault: PhoneFault?
    /// How long the client has to end the session after a fault.
    package var faultLimit: Duration = .seconds(60)
    /// How long the late-update phone waits after the client's shutdown before it sends its update.
    package var lateUpdateDelay: Duration = Self.defaultLateUpdateDelay
    /// The clock ``lateUpdateDelay`` runs and is measured on; tests replace it.
    package var clock: any Clock<Duration> = ContinuousClock()

    /// The late-update phone's default wait after the shutdown: long enough that a client that
    /// closes right after its shutdown has closed, so the check sees it. Chromium's test phone
    /// `LateLinkingDevice` waits 10 s (protocol.md §5.4, §7.5); a conforming client waits up to
    /// 3 minutes.
    package static let defaultLateUpdateDelay: Duration = .seconds(2)
    let authenticator: CTAPAuthenticator
    let advertiser: (any BLEAdvertiser)?
    let logger: Logger

    package init(
        runnerOptions: AuthenticatorRunner.Options, authenticator: CTAPAuthenticator,
        advertiser: (any BLEAdvertiser)? = nil, logger: Logger
    ) {
        self.runnerOptions = runnerOptions
        self.authenticator = authenticator
        self.advertiser = advertiser
        self.logger = logger
    }

    /// What the run saw, shared with the tap's callbacks.
    private struct Observed: Sendable {
        var judge: ClientConductJudge
        var faultAt: ContinuousClock.Instant?
        var closedAt: ContinuousClock.Instant?
        var close: TunnelCloseInfo?
        var replied = false
        var updateAfterReply = false
        /// How long after its shutdown the client closed, if it did before the late update.
        var closedBeforeLateUpdate: Duration?
    }

    private final class Observation: Sendable {
        let state: Mutex<Observed>
        init(_ judge: ClientConductJudge) { state = Mutex(Observed(judge: judge)) }
        func withLock<T: Sendable>(_ body: (inout Observed) -> T) -> T { state.withLock { body(&$0) } }
    }

    /// Runs one session for the client's `qrCode` and returns the report.
    package func run(
        qrCode: String, now: Date = Date(), onEvent: @escaping @Sendable (AuthenticatorEvent) -> Void = { _ in }
    ) async -> ConformanceReport {
        var subject = "client that showed the QR code, profile \(profile.rawValue)"
        if let fault { subject += ", fault \(fault.rawValue)" }
        var report = ConformanceReport(mode: "phone", subject: subject)
        let payload = QRCodeConformance.judge(qrCode, now: Int64(now.timeIntervalSince1970), into: &report)
        guard let payload else {
            ClientConductJudge.skipAll(because: "the QR code is unusable", into: &report)
            let ending = fault == nil ? Self.completionCheck(for: profile) : PhoneChecks.faultClientFailsCleanly
            report.skip(ending, because: "the QR code is unusable")
            return report
        }
        let hint = payload.requestTypeHint.map { HybridRequestType(hint: $0) }
        let observed = Observation(
            ClientConductJudge(revision: profile.revision, hint: hint, phoneHangsUp: profile.hangsUpAfterReply))
        var options = runnerOptions
        if options.digitalCredentials == nil { options.digitalCredentials = ConformanceWallet() }
        var runner = AuthenticatorRunner(
            options: options, authenticator: authenticator, advertiser: advertiser, logger: logger)
        runner.tap = makeTap(observed)
        if profile == .lateUpdate { runner.clock = clock }
        fault?.apply(to: &runner) {
            observed.withLock { if $0.faultAt == nil { $0.faultAt = ContinuousClock.now } }
        }
        let outcome: Result<AuthenticatorRunSummary, AuthenticatorRunnerError>
        do {
            outcome = .success(try await runner.run(qrCode: qrCode, onEvent: onEvent))
        } catch let error as AuthenticatorRunnerError {
            outcome = .failure(error)
        } catch {
            outcome = .failure(.unexpected(UnexpectedError(error)))
        }
        let seen = observed.withLock { $0 }
        seen.judge.record(into: &report)
        if let fault {
            recordFault(fault, seen: seen, outcome: outcome, into: &report)
        } else {
            let lateUpdateLost = profile == .lateUpdate && seen.updateAfterReply
            let completed = Self.completionCheck(for: profile)
            switch outcome {
            case .success(let summary):
                var answers = summary.answers.map { "\($0.command?.name ?? "?") answered \($0.status)" }
                if let kind = summary.digitalCredential { answers.append("JSON request answered: \(kind.rawValue)") }
                report.expect(
                    completed, !answers.isEmpty,
                    observed: answers.joined(separator: ", ") + (seen.close.map { ", tunnel \($0)" } ?? ""))
            case .failure(let error) where lateUpdateLost:
                report.pass(completed, observed: "request answered; then sending the late update failed: \(error)")
            case .failure(let error):
                report.fail(completed, observed: error.description)
            }
            if profile == .lateUpdate { recordLateUpdate(seen: seen, outcome: outcome, into: &report) }
        }
        return report
    }

    private func makeTap(_ observed: Observation) -> ConformancePhoneTap {
        var tap = ConformancePhoneTap()
        tap.observeClientMessage = { message in
            observed.withLock {
                $0.judge.observe(
                    message.bytes, paddedPlaintext: message.paddedPlaintext, accepted: message.error == nil)
            }
        }
        tap.replaceOutgoing = { kind, bytes in
            observed.withLock {
                if kind == .reply {
                    $0.judge.replySent()
                    $0.replied = true
                } else if kind == .update, $0.replied {
                    $0.updateAfterReply = true
                }
            }
            return [bytes]
        }
        tap.observeTunnelClosed = { close in
            observed.withLock {
                $0.closedAt = ContinuousClock.now
                $0.close = close
            }
        }
        profile.apply(to: &tap)
        if profile == .lateUpdate {
            tap.lateUpdateDelay = lateUpdateDelay
            tap.observeClosedBeforeLateUpdate = { elapsed in
                observed.withLock { $0.closedBeforeLateUpdate = elapsed }
            }
        }
        fault?.apply(to: &tap) {
            observed.withLock { if $0.faultAt == nil { $0.faultAt = ContinuousClock.now } }
        }
        // The judge learns the features the session offers once the profile and fault have set them.
        let adjust = tap.adjustSession
        tap.adjustSession = { configuration in
            adjust(&configuration)
            let features = configuration.features
            observed.withLock { $0.judge.phoneOffers(features) }
        }
        return tap
    }

    private func recordLateUpdate(
        seen: Observed, outcome: Result<AuthenticatorRunSummary, AuthenticatorRunnerError>,
        into report: inout ConformanceReport
    ) {
        if let elapsed = seen.closedBeforeLateUpdate {
            report.fail(
                PhoneChecks.lateUpdate,
                observed: "the client closed the tunnel \(elapsed.milliseconds) ms after its shutdown, "
                    + "before the late update (due \(lateUpdateDelay.milliseconds) ms after it)")
            return
        }
        guard seen.updateAfterReply else {
            report.skip(PhoneChecks.lateUpdate, because: "the session ended before the late update was due")
            return
        }
        switch outcome {
        case .success:
            report.pass(
                PhoneChecks.lateUpdate,
                observed: "the update went out \(lateUpdateDelay.milliseconds) ms after the shutdown; "
                    + "the client closed after it")
        case .failure(let error):
            report.fail(
                PhoneChecks.lateUpdate,
                observed: "the client closed the tunnel about \(lateUpdateDelay.milliseconds) ms after its shutdown, "
                    + "as the late update went out; it could not be sent (\(error))")
        }
    }

    private func recordFault(
        _ fault: PhoneFault, seen: Observed, outcome: Result<AuthenticatorRunSummary, AuthenticatorRunnerError>,
        into report: inout ConformanceReport
    ) {
        if fault.clientCompletes {
            recordFallback(seen: seen, outcome: outcome, into: &report)
            return
        }
        let check = PhoneChecks.faultClientFailsCleanly
        if fault.clientNeverConnects {
            switch outcome {
            case .failure(.noClientConnected(let window)):
                report.pass(check, observed: "the client did not reach the advertised tunnel within \(window)")
            case .failure(let error):
                report.fail(check, observed: "expected no client on this tunnel, got: \(error)")
            case .success:
                report.fail(check, observed: "the client completed a session on a tunnel it was not sent to")
            }
            return
        }
        guard let faultAt = seen.faultAt else {
            report.skip(check, because: "the session ended before the fault took effect: \(outcome)")
            return
        }
        if fault == .oversized, seen.close?.code == 1009 {
            report.skip(
                check,
                because: "the relay refused the oversized message (close 1009); the client's reaction cannot be seen")
            return
        }
        guard let closedAt = seen.closedAt else {
            report.fail(check, observed: "the tunnel never closed after the fault")
            return
        }
        let elapsed = closedAt - faultAt
        let ended: String
        switch outcome {
        case .success: ended = "the session ended normally"
        case .failure(let error): ended = "\(error)"
        }
        report.expect(
            check, elapsed <= faultLimit,
            observed: "closed \(String(format: "%.2f", elapsed.seconds)) s after the fault (\(ended))")
    }
}

extension PhoneConformanceRun {
    /// ``PhoneFault/closedL2CAPPSM``: the session must complete, over the tunnel.
    private func recordFallback(
        seen: Observed, outcome: Result<AuthenticatorRunSummary, AuthenticatorRunnerError>,
        into report: inout ConformanceReport
    ) {
        let check = PhoneChecks.l2capFallback
        guard seen.faultAt != nil else {
            report.skip(
                check,
                because: "no PSM was advertised: the QR code did not offer L2CAP (key 6), or this Bluetooth "
                    + "backend cannot listen (--ble hci with extended advertising can)")
            return
        }
        switch outcome {
        case .success(let summary):
            report.expect(
                check, summary.served,
                observed: "the client fell back to the tunnel: "
                    + summary.answers.map { "\($0.command?.name ?? "?") answered \($0.status)" }.joined(separator: ", ")
            )
        case .failure(let error):
            report.fail(check, observed: "the session did not complete over the tunnel: \(error)")
        }
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The duration in whole milliseconds, rounded down.
    fileprivate var milliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
