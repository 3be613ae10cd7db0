import HybridClient
import HybridCore

/// The virtual security key's brain: the CTAPHID state machine, the request policy and the
/// answer cache, driving phone ceremonies through a ``PhoneCeremonyDriver``. I/O-free itself:
/// reports come in through ``reportReceived(_:)``, go out through `output`, and time comes from
/// an injected ``SecurityKeyClock``; the uhid device (``UHIDDevice``) or a test feeds it.
///
/// A forwarded request's answer goes to the host as soon as the phone replies; the ceremony's
/// tunnel then lingers in the background for a late update (the driver's linger, protocol.md
/// §7.5). At most one tunnel lingers: the next phone ceremony ends it, so a new request never
/// waits for it and a new QR code never competes with an old tunnel.
public actor SecurityKeyBridge {
    private var machine: CTAPHIDStateMachine
    private var cache: BridgeResponseCache
    private let driver: any PhoneCeremonyDriver
    private let clock: SecurityKeyClock
    private let output: @Sendable ([UInt8]) -> Void
    private let events: @Sendable (SecurityKeyEvent) -> Void
    private var ongoing: [UInt64: Task<Void, Never>] = [:]
    /// The command of each request forwarded to the phone and not yet answered.
    private var forwarded: [UInt64: CTAPCommand] = [:]
    /// The ceremony whose answer is out and whose tunnel lingers (§7.5).
    private var lingering: (id: UInt64, task: Task<Void, Never>)?
    private var timerWake: AsyncStream<Void>.Continuation?
    private var sleeping: (deadline: Duration, task: Task<Void, any Error>)?

    /// - Parameters:
    ///   - output: writes one 64-byte input report to the host, in order.
    ///   - events: progress for the user; called from any task.
    public init(
        driver: any PhoneCeremonyDriver,
        clock: SecurityKeyClock = .continuous(),
        configuration: CTAPHIDStateMachine.Configuration = .init(),
        cache: BridgeResponseCache = .init(),
        output: @escaping @Sendable ([UInt8]) -> Void,
        events: @escaping @Sendable (SecurityKeyEvent) -> Void = { _ in }
    ) {
        self.machine = CTAPHIDStateMachine(configuration: configuration)
        self.cache = cache
        self.driver = driver
        self.clock = clock
        self.output = output
        self.events = events
    }

    /// One output report from the host (64 bytes, report-ID byte already removed).
    public func reportReceived(_ report: [UInt8]) {
        perform(machine.reportReceived(report, at: clock.now()))
    }

    /// The host closed the device: the ceremony in progress, if any, ends.
    public func deviceClosed() {
        perform(machine.deviceClosed())
    }

    /// Sends what is due now (KEEPALIVEs, message timeouts). ``runTimers()`` calls this.
    public func tick() {
        perform(machine.tick(at: clock.now()))
    }

    /// When ``tick()`` is due next, on the injected clock.
    public var nextDeadline: Duration? { machine.nextDeadline }

    /// Ticks at every deadline until the task is cancelled or ``shutdown()``. Run it beside the
    /// report reader. A new, earlier deadline (a request started) cuts the current sleep short.
    public func runTimers() async {
        let (wakes, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        timerWake = continuation
        var iterator = wakes.makeAsyncIterator()
        while !Task.isCancelled {
            tick()
            guard let deadline = machine.nextDeadline else {
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

    /// The person cancelled on this computer (the QR window's Cancel): every request waiting for
    /// the phone ends, its program gets CTAP2_ERR_KEEPALIVE_CANCEL (as after its own CTAPHID_CANCEL)
    /// and the ceremony's tunnel closes.
    public func cancelPhoneCeremonies() {
        for (id, command) in forwarded {
            ongoing[id]?.cancel()
            finished(id: id, command: command, request: nil, result: .failure(CancelledOnThisComputer()))
        }
    }

    /// Cancels every ceremony and ends the linger (on exit).
    public func shutdown() {
        for task in ongoing.values { task.cancel() }
        ongoing.removeAll()
        endLinger()
        timerWake?.finish()
        sleeping?.task.cancel()
    }

    // MARK: - Actions

    private func perform(_ actions: [CTAPHIDStateMachine.Action]) {
        for action in actions {
            switch action {
            case .send(let message):
                for report in message.reports { output(report) }
            case .reject(let rejection):
                for report in rejection.message.reports { output(report) }
            case .startRequest(let id, _, let payload):
                start(id: id, request: payload)
            case .cancelRequest(let id, let reason):
                forwarded[id] = nil
                ongoing.removeValue(forKey: id)?.cancel()
                events(.cancelled(reason))
            case .wink:
                events(.wink)
            case .ignore:
                break
            }
        }
        guard let next = machine.nextDeadline else { return }
        if let sleeping {
            if next < sleeping.deadline { sleeping.task.cancel() }
        } else {
            timerWake?.yield()
        }
    }

    private func start(id: UInt64, request: [UInt8]) {
        let command = CTAPCommand(rawValue: request.first ?? 0)
        let now = clock.now()
        if let cached = cache.answer(to: request, at: now) {
            events(.answeredLocally(command: command, status: .ok, reason: "the same request was answered moments ago"))
            return respond(id: id, cached)
        }
        switch BridgeRequestPolicy.decide(request) {
        case .answer(let bytes, let reason):
            events(.answeredLocally(command: command, status: CTAPStatusCode(rawValue: bytes.first ?? 0), reason: reason))
            respond(id: id, bytes)
        case .hold:
            machine.keepaliveStatusChanged(id: id, to: .userPresenceNeeded)
            let clock = self.clock
            let deadline = now + BridgeRequestPolicy.selectionHoldLimit
            ongoing[id] = Task {
                guard (try? await clock.sleep(deadline)) != nil else { return }
                await self.finished(id: id, command: command, request: nil, result: .success([CTAPStatusCode.userActionTimeout.rawValue]))
            }
        case .forward(let requestType):
            endLinger()
            forwarded[id] = command
            events(.forwarding(command: command, rpID: BridgeRequestPolicy.relyingPartyID(of: request)))
            let driver = self.driver
            let events = self.events
            ongoing[id] = Task {
                do {
                    let end = try await driver.forward(request, requestType: requestType) { event in
                        events(.ceremony(event))
                        if case .qr = event { Task { await self.userNeeded(id: id) } }
                    } onReply: { reply in
                        await self.replied(id: id, command: command, request: request, reply: reply)
                    }
                    await self.tunnelClosed(id: id, command: command, end: end)
                } catch {
                    await self.finished(id: id, command: command, request: request, result: .failure(error))
                }
            }
        }
    }

    /// The phone replied: the host gets the answer now, and the ceremony's task lingers.
    private func replied(id: UInt64, command: CTAPCommand, request: [UInt8], reply: [UInt8]) {
        guard let task = ongoing[id] else { return }  // cancelled meanwhile
        lingering = (id, task)
        finished(id: id, command: command, request: request, result: .success(reply))
    }

    /// The tunnel of ceremony `id` closed after its linger.
    private func tunnelClosed(id: UInt64, command: CTAPCommand, end: HybridSessionEnd) {
        if lingering?.id == id { lingering = nil }
        // A driver that ended without a reply: the host still gets an answer.
        finished(
            id: id, command: command, request: [],
            result: .failure(HybridClientError.invalidResponse("the ceremony ended without a reply")))
        events(.tunnelClosed(end))
    }

    /// Ends the lingering tunnel, if any (its task reports ``SecurityKeyEvent/tunnelClosed(_:)``).
    private func endLinger() {
        lingering?.task.cancel()
        lingering = nil
    }

    private func userNeeded(id: UInt64) {
        machine.keepaliveStatusChanged(id: id, to: .userPresenceNeeded)
    }

    /// A ceremony (or hold) ended. `request` is nil for a hold (never cached, no done event).
    private func finished(id: UInt64, command: CTAPCommand, request: [UInt8]?, result: Result<[UInt8], any Error>) {
        forwarded[id] = nil
        guard ongoing.removeValue(forKey: id) != nil else { return }  // cancelled meanwhile
        switch result {
        case .success(let reply):
            if let request {
                cache.store(reply, for: request, at: clock.now())
                events(.done(command: command, status: CTAPStatusCode(rawValue: reply.first ?? 0)))
            }
            respond(id: id, reply)
        case .failure(let error):
            if error is CancellationError { return }
            let status = CeremonyFailureStatus.status(for: error)
            events(.failed(command: command, status: status, message: "\(error)"))
            respond(id: id, [status.rawValue])
        }
    }

    private func respond(id: UInt64, _ payload: [UInt8]) {
        perform(machine.responseReady(id: id, payload: payload, at: clock.now()))
    }
}

/// The bridge's time: a monotonic reading as a ``Duration`` since a fixed origin, and a sleep
/// until such a reading. Tests inject a manual one.
public struct SecurityKeyClock: Sendable {
    public var now: @Sendable () -> Duration
    public var sleep: @Sendable (_ until: Duration) async throws -> Void

    public init(now: @escaping @Sendable () -> Duration, sleep: @escaping @Sendable (Duration) async throws -> Void) {
        self.now = now
        self.sleep = sleep
    }

    /// `ContinuousClock`, from the moment this is called.
    public static func continuous() -> SecurityKeyClock {
        let origin = ContinuousClock.now
        return SecurityKeyClock(
            now: { ContinuousClock.now - origin },
            sleep: { deadline in try await ContinuousClock().sleep(until: origin + deadline) }
        )
    }
}
