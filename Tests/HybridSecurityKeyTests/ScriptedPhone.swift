import HybridClient
import HybridCore
import HybridSecurityKey
import Synchronization
import TestManualClock
import TestSupport

/// A fake phone for the bridge: each ceremony follows the next step of a script and is
/// recorded. `.waitForCancel` holds the ceremony until its task is cancelled and reports that.
/// `.reply` answers and closes the tunnel at once (as Chromium's phone does after the shutdown);
/// `.replyThenLinger` answers and then keeps the tunnel open until its ``LingeringTunnel`` is told
/// to send a late update or to close, or the task is cancelled.
final class ScriptedPhone: PhoneCeremonyDriver, Sendable {
    enum Step: Sendable {
        case reply([UInt8])
        case replyThenLinger([UInt8], LingeringTunnel)
        case fail(HybridClientError)
        case waitForCancel
    }

    private let state: Mutex<(steps: [Step], requests: [[UInt8]])>
    let cancellations: AsyncStream<Void>
    private let cancelled: AsyncStream<Void>.Continuation

    init(_ steps: [Step]) {
        state = Mutex((steps, []))
        (cancellations, cancelled) = AsyncStream<Void>.makeStream()
    }

    /// The requests that reached the phone, in order.
    var requests: [[UInt8]] { state.withLock { $0.requests } }

    func forward(
        _ request: [UInt8], requestType: HybridRequestType, events: @escaping @Sendable (HybridClientEvent) -> Void,
        onReply: @escaping @Sendable ([UInt8]) async -> Void
    ) async throws -> HybridSessionEnd {
        let step = state.withLock { state -> Step? in
            state.requests.append(request)
            return state.steps.isEmpty ? nil : state.steps.removeFirst()
        }
        events(.qr(url: "FIDO:/0"))
        switch step {
        case .reply(let bytes)?:
            events(.waitingForApproval)
            await onReply(bytes)
            return HybridSessionEnd(reason: .phoneClosed)
        case .replyThenLinger(let bytes, let tunnel)?:
            events(.waitingForApproval)
            await onReply(bytes)
            events(.lingering(limit: HybridClientOptions.defaultLinger))
            return await tunnel.linger()
        case .fail(let error)?:
            throw error
        case .waitForCancel?, nil:
            let (never, _) = AsyncStream<Void>.makeStream()
            for await _ in never {}  // returns only when the task is cancelled
            cancelled.yield()
            throw CancellationError()
        }
    }
}

/// The phone's side of a tunnel after the client's shutdown, driven by the test: late updates,
/// then a close. Cancelling the lingering task ends the linger as the client's own close.
final class LingeringTunnel: Sendable {
    enum Move: Sendable {
        case lateUpdate
        case close
    }

    private let moves: AsyncStream<Move>
    private let mover: AsyncStream<Move>.Continuation
    /// Yields once when the linger has started (the reply is out).
    let started: AsyncStream<Void>
    private let start: AsyncStream<Void>.Continuation

    init() {
        (moves, mover) = AsyncStream<Move>.makeStream()
        (started, start) = AsyncStream<Void>.makeStream()
    }

    /// The phone sends a late update.
    func sendLateUpdate() { mover.yield(.lateUpdate) }

    /// The phone closes the tunnel.
    func close() { mover.yield(.close) }

    fileprivate func linger() async -> HybridSessionEnd {
        start.yield()
        var lateUpdates = 0
        for await move in moves {
            switch move {
            case .lateUpdate: lateUpdates += 1
            case .close: return HybridSessionEnd(reason: .phoneClosed, lateUpdates: lateUpdates)
            }
        }
        return HybridSessionEnd(reason: .cancelled, lateUpdates: lateUpdates)  // the stream ends on cancellation
    }
}

/// A bridge with a scripted phone, a manual clock and its reports collected in order.
struct BridgeHarness {
    let bridge: SecurityKeyBridge
    let phone: ScriptedPhone
    /// Moves only when the test advances it (the harness runs no timers: a test ticks the bridge).
    let clock: TestManualClock.ManualClock
    private let reports: AsyncStream<[UInt8]>.Iterator.Box
    /// The bridge's events, in order.
    let events: AsyncStream<SecurityKeyEvent>
    /// What the bridge last asked to persist (``SecurityKeyBridge`` `knownCredentialsChanged`).
    let saved = Saved()

    final class Saved: Sendable {
        let credentials = Mutex<KnownCredentials?>(nil)
    }

    init(_ steps: [ScriptedPhone.Step], policy: BridgeRequestPolicy = .init()) {
        let phone = ScriptedPhone(steps)
        let clock = TestManualClock.ManualClock()
        let (stream, continuation) = AsyncStream<[UInt8]>.makeStream()
        let (events, eventContinuation) = AsyncStream<SecurityKeyEvent>.makeStream()
        self.phone = phone
        self.clock = clock
        self.reports = .init(stream.makeAsyncIterator())
        self.events = events
        let saved = self.saved
        bridge = SecurityKeyBridge(
            driver: phone, clock: clock, policy: policy,
            knownCredentialsChanged: { credentials in saved.credentials.withLock { $0 = credentials } },
            output: { continuation.yield($0) },
            events: { eventContinuation.yield($0) })
    }

    /// Allocates a channel with INIT.
    func allocate() async throws -> UInt32 {
        await bridge.reportReceived(
            CTAPHIDStateMachineTests.initReport(0xFFFF_FFFF, 0x06, length: 8, CTAPHIDStateMachineTests.nonce))
        let message = try await nextMessage()
        let p = message.payload
        return UInt32(p[8]) << 24 | UInt32(p[9]) << 16 | UInt32(p[10]) << 8 | UInt32(p[11])
    }

    /// Sends `payload` as one CTAPHID message on `channel`.
    func send(_ command: CTAPHIDCommand, _ payload: [UInt8], on channel: UInt32) async {
        for report in CTAPHIDMessage(channel: channel, command: command, payload: payload).reports {
            await bridge.reportReceived(report)
        }
    }

    /// The next whole message the bridge sends (reassembled by hand from the spec layout).
    func nextMessage() async throws -> CTAPHIDMessage {
        guard let first = await reports.next() else { throw TestFailure("no report") }
        let channel = UInt32(first[0]) << 24 | UInt32(first[1]) << 16 | UInt32(first[2]) << 8 | UInt32(first[3])
        let length = Int(first[5]) << 8 | Int(first[6])
        var payload = Array(first[7...].prefix(length))
        while payload.count < length {
            guard let next = await reports.next() else {
                throw TestFailure("message cut short")
            }
            payload += next[5...].prefix(length - payload.count)
        }
        return CTAPHIDMessage(channel: channel, command: CTAPHIDCommand(rawValue: first[4]), payload: payload)
    }
}

extension AsyncStream.Iterator {
    /// A reference to an iterator, so a struct harness can advance it.
    final class Box: @unchecked Sendable {
        private var iterator: AsyncStream.Iterator
        init(_ iterator: AsyncStream.Iterator) { self.iterator = iterator }
        func next() async -> Element? { await iterator.next() }
    }
}
