import HybridCTAP
import HybridClient
import HybridCore

/// The virtual security key's shell: a thin actor over `SecurityKeyStateMachine`, the sans-IO
/// core that owns the request in flight and every deadline. Reports come in through
/// ``reportReceived(_:)`` and go out through `output`; the actor runs each phone ceremony the core
/// starts through a ``PhoneCeremonyDriver`` and feeds its outcome back, and ``runTimers()``
/// sleeps on an injected clock until the core's next deadline. The key's device
/// (the key broker's, or `HybridUHID`'s uhid device) or a test feeds it.
///
/// A forwarded request's answer goes to the host as soon as the phone replies; the ceremony's
/// tunnel then lingers in the background for a late update (protocol.md §7.5) until the phone
/// closes it or `linger` has passed on the clock: the linger's end is one of the core's deadlines,
/// and the actor closes the tunnel (cancels the phone task) when the core says so. At most one
/// tunnel lingers: the next phone ceremony ends it, so a new request never waits for it and a new
/// QR code never competes with an old tunnel.
public actor SecurityKeyBridge {
    private var core: SecurityKeyStateMachine
    private let knownCredentialsChanged: @Sendable (KnownCredentials) -> Void
    private let driver: any PhoneCeremonyDriver
    private let clock: ClockReadings
    private let output: @Sendable ([UInt8]) -> Void
    private let events: @Sendable (SecurityKeyEvent) -> Void
    /// The phone task of each ceremony: the one in flight and the one whose tunnel lingers.
    private var ceremonies: [UInt64: Task<Void, Never>] = [:]
    private var timerWake: AsyncStream<Void>.Continuation?
    private var sleeping: (deadline: Duration, task: Task<Void, any Error>)?

    /// A bridge that starts with no remembered credential IDs and keeps what the phone teaches it
    /// in memory only.
    /// - Parameters:
    ///   - driver: runs each phone ceremony (``HybridPhoneDriver`` in production).
    ///   - clock: the time the CTAPHID timers, the linger and the answer cache run on (tests
    ///     inject a manual one).
    ///   - configuration: the CTAPHID device's limits and capabilities.
    ///   - linger: how long a ceremony's tunnel stays open after the answer for a late update
    ///     (protocol.md §7.5); by default Chromium's three minutes.
    ///   - output: writes one 64-byte input report to the host, in order.
    ///   - events: progress for the user; called from any task.
    public init(
        driver: any PhoneCeremonyDriver,
        clock: any Clock<Duration> = ContinuousClock(),
        configuration: CTAPHIDStateMachine.Configuration = .init(),
        linger: Duration = HybridClientOptions.defaultLinger,
        output: @escaping @Sendable ([UInt8]) -> Void,
        events: @escaping @Sendable (SecurityKeyEvent) -> Void = { _ in }
    ) {
        self.init(
            driver: driver, clock: clock, configuration: configuration, policy: BridgeRequestPolicy(), linger: linger,
            output: output, events: events
        )
    }

    /// - Parameters:
    ///   - policy: the request policy with its remembered credential IDs (loaded by the caller).
    ///   - knownCredentialsChanged: called with the policy's IDs after the phone taught it a new
    ///     one, to persist them (``KnownCredentialsFile``).
    ///   - linger: how long a ceremony's tunnel stays open after the answer for a late update.
    ///   - output: writes one 64-byte input report to the host, in order.
    ///   - events: progress for the user; called from any task.
    package init(
        driver: any PhoneCeremonyDriver,
        clock: any Clock<Duration> = ContinuousClock(),
        configuration: CTAPHIDStateMachine.Configuration = .init(),
        cache: BridgeResponseCache = .init(),
        policy: BridgeRequestPolicy,
        knownCredentialsChanged: @escaping @Sendable (KnownCredentials) -> Void = { _ in },
        linger: Duration = HybridClientOptions.defaultLinger,
        output: @escaping @Sendable ([UInt8]) -> Void,
        events: @escaping @Sendable (SecurityKeyEvent) -> Void = { _ in }
    ) {
        self.core = SecurityKeyStateMachine(
            transport: CTAPHIDStateMachine(configuration: configuration), policy: policy, cache: cache, linger: linger)
        self.knownCredentialsChanged = knownCredentialsChanged
        self.driver = driver
        self.clock = ClockReadings(clock)
        self.output = output
        self.events = events
    }

    /// One output report from the host (64 bytes, report-ID byte already removed).
    public func reportReceived(_ report: [UInt8]) {
        perform(core.reportReceived(report, at: clock.now()))
    }

    /// The host closed the device: the ceremony in progress, if any, ends.
    public func deviceClosed() {
        perform(core.deviceClosed(at: clock.now()))
    }

    /// Sends what is due now (KEEPALIVEs, message timeouts, the end of a hold) and closes a
    /// tunnel whose linger is over. ``runTimers()`` calls this.
    public func tick() {
        perform(core.tick(at: clock.now()))
    }

    /// When ``tick()`` is due next, on the injected clock.
    public var nextDeadline: Duration? { core.nextDeadline }

    /// Ticks at every deadline until the task is cancelled or ``shutdown()``. Run it beside the
    /// report reader. A new, earlier deadline (a request started) cuts the current sleep short.
    public func runTimers() async {
        let (wakes, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        timerWake = continuation
        var iterator = wakes.makeAsyncIterator()
        while !Task.isCancelled {
            tick()
            guard let deadline = core.nextDeadline else {
                // Idle: wait until an action sets a deadline.
                if await iterator.next() == nil { return }
                continue
            }
            let clock = self.clock
            let sleeper = Task { try await clock.sleep(deadline) }
            sleeping = (deadline, sleeper)
            await withTaskCancellationHandler {
                _ = await sleeper.result
            } onCancel: {
                sleeper.cancel()
            }
            sleeping = nil
        }
    }

    /// The person cancelled on this computer (the QR window's Cancel): the request waiting for
    /// the phone ends, its program gets CTAP2_ERR_KEEPALIVE_CANCEL (as after its own CTAPHID_CANCEL)
    /// and the ceremony's tunnel closes.
    public func cancelPhoneCeremonies() {
        perform(core.cancelledOnThisComputer(at: clock.now()))
    }

    /// The Bluetooth adapter went away, for `reason` (a person's text, e.g. "Bluetooth adapter
    /// hci1 is down: …"), or came back (`nil`), as an adapter watch reports it. Going away fails
    /// every request waiting for the phone at once (CTAP1_ERR_OTHER, the reason in the
    /// ``SecurityKeyEvent/failed(command:status:message:)`` event), and requests that need the
    /// phone are refused at once, without a QR code no phone could answer, until it is back. A
    /// report of the unchanged state changes nothing.
    public func phoneReachabilityChanged(unreachableBecause reason: String?) {
        perform(core.phoneReachabilityChanged(unreachableBecause: reason, at: clock.now()))
    }

    /// Cancels every ceremony and ends the linger (on exit).
    public func shutdown() {
        perform(core.shutdown())
        timerWake?.finish()
        sleeping?.task.cancel()
    }

    // MARK: - Actions

    private func perform(_ actions: [SecurityKeyStateMachine.Action]) {
        for action in actions {
            switch action {
            case .send(let message):
                for report in message.reports { output(report) }
            case .startCeremony(let id, let request):
                ceremonies[id] = ceremony(id: id, request: request)
            case .cancelCeremony(let id), .endLinger(let id):
                ceremonies.removeValue(forKey: id)?.cancel()
            case .event(let event):
                events(event)
            case .knownCredentialsChanged(let credentials):
                knownCredentialsChanged(credentials)
            }
        }
        guard let next = core.nextDeadline else { return }
        if let sleeping {
            if next < sleeping.deadline { sleeping.task.cancel() }
        } else {
            timerWake?.yield()
        }
    }

    /// The phone task of request `id`: runs the ceremony and reports its outcome to the core.
    private func ceremony(id: UInt64, request: PhoneRequest) -> Task<Void, Never> {
        Task { await runCeremony(id: id, request: request) }
    }

    /// Runs the ceremony of request `id` and reports its outcome; beside it, a child task tells
    /// the core when the QR code is up (KEEPALIVEs then say UPNEEDED), so nothing outlives it.
    private func runCeremony(id: UInt64, request: PhoneRequest) async {
        let driver = self.driver
        let events = self.events
        let (qrShown, qrShownSink) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in qrShown { await self.phoneNeedsUser(id: id) }
            }
            defer { qrShownSink.finish() }
            do {
                let end = try await driver.forward(request.bytes, requestType: request.type) { event in
                    events(.ceremony(event))
                    if case .qr = event { qrShownSink.yield() }
                } onReply: { reply in
                    await self.phoneReplied(id: id, reply: reply)
                }
                ceremonyEnded(id: id)
                perform(core.phoneTunnelClosed(id: id, end: end, at: clock.now()))
            } catch {
                ceremonyEnded(id: id)
                // Cancelled by the core (or on exit): the core has ended the request already.
                guard !(error is CancellationError) else { return }
                perform(core.phoneFailed(id: id, error: error, at: clock.now()))
            }
        }
    }

    private func phoneNeedsUser(id: UInt64) {
        core.phoneNeedsUser(id: id)
    }

    private func phoneReplied(id: UInt64, reply: [UInt8]) {
        perform(core.phoneReplied(id: id, reply: reply, at: clock.now()))
    }

    /// The phone task of ceremony `id` has returned: it is no longer cancelled through the map.
    private func ceremonyEnded(id: UInt64) {
        ceremonies.removeValue(forKey: id)
    }
}

/// A clock's readings as durations since the bridge was made (the core's time), and a sleep until
/// such a reading.
private struct ClockReadings: Sendable {
    /// The current reading.
    let now: @Sendable () -> Duration
    /// Sleeps until ``now`` reaches the reading; throws `CancellationError` if the task is cancelled.
    let sleep: @Sendable (_ until: Duration) async throws -> Void

    init<C: Clock<Duration>>(_ clock: C) {
        let origin = clock.now
        now = { origin.duration(to: clock.now) }
        sleep = { deadline in try await clock.sleep(until: origin.advanced(by: deadline), tolerance: nil) }
    }
}
