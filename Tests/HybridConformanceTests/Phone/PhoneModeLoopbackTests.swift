import Foundation
import HybridConformance
import HybridConformanceLive
import HybridCore
import Synchronization
import Testing

@testable import HybridClient

/// `hybrid-conformance phone` against our own hybrid-client, in-process over a relay on
/// 127.0.0.1 and a simulated air: every check passes with the strict profile, every profile is
/// tolerated, and every fault ends the client's ceremony with a typed error in time.
@Suite struct PhoneModeLoopbackTests {
    static func expectEveryCheckPasses(
        _ outcome: PhoneLoopback.Outcome, profile: PhoneProfile = .strict, except skipped: Set<String> = []
    ) {
        #expect(outcome.clientError == nil, "client: \(outcome.client)")
        for check in PhoneChecks.judged + [PhoneConformanceRun.completionCheck(for: profile)]
        where !skipped.contains(check.id) {
            let result = outcome.report.result(for: check.id)
            #expect(result?.outcome == .pass, "\(check.id): \(result?.observed ?? "not run")")
        }
        #expect(outcome.report.succeeded, "\(outcome.report.humanText())")
    }

    @Test func strictPhonePassesOurClientForCreateAndGet() async throws {
        try await PhoneLoopback.with { loopback in
            let created = try await loopback.run(try PhoneLoopback.registration())
            Self.expectEveryCheckPasses(created)
            #expect(created.report.result(for: PhoneChecks.ctapCommand.id)?.observed.contains("makeCredential") == true)
            let signedIn = try await loopback.run(try PhoneLoopback.authentication())
            Self.expectEveryCheckPasses(signedIn)
            #expect(signedIn.report.result(for: PhoneChecks.ctapCommand.id)?.observed.contains("getAssertion") == true)
            guard case .authentication = try signedIn.client.get() else {
                Issue.record("not an authentication")
                return
            }
        }
    }

    /// Our client tolerates every real phone variant: the ceremony succeeds and every check passes
    /// (the shutdown is not judged when the phone hangs up first).
    @Test(arguments: PhoneProfile.allCases) func ourClientToleratesProfile(_ profile: PhoneProfile) async throws {
        try await PhoneLoopback.with { loopback in
            // The late-update phone's wait after the shutdown ends only once our client lingers.
            let phoneClock = TriggeredClock()
            let outcome = try await loopback.run(
                try PhoneLoopback.registration(), profile: profile, phoneClock: phoneClock
            ) { event in
                if case .lingering = event { phoneClock.fire() }
            }
            #expect(outcome.report.subject.contains(profile.rawValue))
            Self.expectEveryCheckPasses(
                outcome, profile: profile, except: profile.hangsUpAfterReply ? [PhoneChecks.shutdownAfterReply.id] : [])
            if profile == .lateUpdate {
                // Our client lingers after its shutdown (§7.5): it is still there when the phone's
                // wait ends, accepts the late update, and the phone's close ends the linger.
                let late = outcome.report.result(for: PhoneChecks.lateUpdate.id)
                #expect(late?.outcome == .pass, "\(late?.observed ?? "not run")")
                #expect(late?.observed.hasPrefix("the update went out 2000 ms after the shutdown") == true)
                #expect(outcome.end == HybridSessionEnd(reason: .phoneClosed, lateUpdates: 1))
            } else if profile == .revision0 {
                #expect(outcome.end == HybridSessionEnd(reason: .closedAtOnce))  // no shutdown, nothing to wait for
            } else {
                #expect(outcome.end == HybridSessionEnd(reason: .phoneClosed, lateUpdates: 0))
            }
            if profile.hangsUpAfterReply {
                #expect(outcome.report.result(for: PhoneChecks.shutdownAfterReply.id)?.outcome == .skip)
            }
        }
    }

    /// A client that closes the tunnel right after its shutdown (ours without a linger, as it was
    /// before §7.5's wait): the phone's clock never moves, so the client's close ends the phone's
    /// wait before the late update. The recommendation fails (a warning), the session itself
    /// completed, and the update was never sent.
    @Test func clientThatClosesRightAfterItsShutdownMissesTheLateUpdate() async throws {
        try await PhoneLoopback.with { loopback in
            let outcome = try await loopback.run(
                try PhoneLoopback.registration(), profile: .lateUpdate, clientLinger: .zero,
                phoneClock: TriggeredClock())
            #expect(outcome.clientError == nil, "client: \(outcome.client)")
            #expect(outcome.end == HybridSessionEnd(reason: .closedAtOnce))
            let late = try #require(outcome.report.result(for: PhoneChecks.lateUpdate.id))
            #expect(late.outcome == .warn)
            #expect(
                late.observed
                    == "the client closed the tunnel 0 ms after its shutdown, "
                    + "before the late update (due 2000 ms after it)")
            let completed = outcome.report.result(for: PhoneChecks.profileTolerated.id)
            #expect(completed?.outcome == .pass, "\(completed?.observed ?? "not run")")
            #expect(outcome.report.result(for: PhoneChecks.shutdownAfterReply.id)?.outcome == .pass)
            #expect(outcome.report.succeeded, "\(outcome.report.humanText())")
        }
    }

    /// Faults the client detects by itself: it fails with a typed error and closes the tunnel,
    /// and the phone's report says the client ended the session within the limit.
    @Test(arguments: [PhoneFault.corruptFrame, .garbageAfterHandshake])
    func ourClientFailsCleanlyOnFault(_ fault: PhoneFault) async throws {
        try await PhoneLoopback.with { loopback in
            let outcome = try await loopback.run(try PhoneLoopback.registration(), fault: fault)
            let error = try #require(outcome.clientError, "client: \(outcome.client)")
            switch error {
            case .session, .tunnel: break
            default: Issue.record("\(fault.rawValue): unexpected client error \(error)")
            }
            let result = outcome.report.result(for: PhoneChecks.faultClientFailsCleanly.id)
            #expect(result?.outcome == .pass, "\(fault.rawValue): \(result?.observed ?? "not run")")
        }
    }

    /// An oversized reply: our relay refuses it (1009) and closes both ends, so the client fails
    /// with a typed error; what the client would do with it cannot be seen from the phone.
    @Test func oversizedReplyIsRefusedByTheRelay() async throws {
        try await PhoneLoopback.with { loopback in
            let outcome = try await loopback.run(try PhoneLoopback.registration(), fault: .oversized)
            let error = try #require(outcome.clientError, "client: \(outcome.client)")
            switch error {
            case .session, .tunnel: break
            default: Issue.record("unexpected client error \(error)")
            }
            let result = outcome.report.result(for: PhoneChecks.faultClientFailsCleanly.id)
            #expect(result?.outcome == .skip, "\(result?.observed ?? "not run")")
            #expect(result?.observed.contains("1009") == true)
        }
    }

    /// The advert names a routing ID the relay never gave out: the client's connect gets 404, and
    /// no client reaches the phone's tunnel (the phone's wait ends after its window).
    @Test func wrongRoutingIDLeavesTheClientWithA404() async throws {
        try await PhoneLoopback.with { loopback in
            let outcome = try await loopback.run(
                try PhoneLoopback.registration(), fault: .wrongRoutingID, phoneClientWait: .seconds(3))
            #expect(outcome.clientError == .tunnel(.httpStatus(404)))
            let result = outcome.report.result(for: PhoneChecks.faultClientFailsCleanly.id)
            #expect(result?.outcome == .pass, "\(result?.observed ?? "not run")")
        }
    }

    /// The phone never answers: the client's own timeout (on a clock the test fires once the
    /// client waits for approval) ends the ceremony, and the phone sees the tunnel close.
    @Test func neverAnswerEndsWithTheClientsTimeout() async throws {
        try await PhoneLoopback.with { loopback in
            let clock = TriggeredClock()
            let outcome = try await loopback.run(
                try PhoneLoopback.registration(), fault: .neverAnswer, clientTimeout: .seconds(30), clock: clock
            ) { event in
                if event == .waitingForApproval { clock.fire() }
            }
            #expect(outcome.clientError == .timedOut(stage: .waitingForApproval, after: .seconds(30)))
            let result = outcome.report.result(for: PhoneChecks.faultClientFailsCleanly.id)
            #expect(result?.outcome == .pass, "\(result?.observed ?? "not run")")
        }
    }
}

/// A clock whose time stands still and whose sleeps all end when ``fire()`` is called (or their
/// task is cancelled); once fired, later sleeps end at once.
final class TriggeredClock: Clock, Sendable {
    typealias Instant = ContinuousClock.Instant

    private struct State {
        var fired = false
        var sleepers: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var next: UInt64 = 0
    }

    private let state = Mutex(State())
    private let start = ContinuousClock.now

    var now: Instant { start }
    var minimumResolution: Duration { .zero }

    func fire() {
        let sleepers = state.withLock { state in
            state.fired = true
            defer { state.sleepers = [:] }
            return Array(state.sleepers.values)
        }
        for sleeper in sleepers { sleeper.resume() }
    }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { state in
            state.next += 1
            return state.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    if state.fired || Task.isCancelled { return true }
                    state.sleepers[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.sleepers.removeValue(forKey: id) }?.resume()
        }
        try Task.checkCancellation()
    }
}
