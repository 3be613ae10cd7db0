import HybridCTAP
import HybridClient
import HybridCore

/// The virtual security key's brain: the CTAPHID state machine, the request policy and the
/// answer cache, driving phone ceremonies through a ``PhoneCeremonyDriver``. I/O-free itself:
/// reports come in through ``reportReceived(_:)``, go out through `output`, and time comes from
/// an injected ``SecurityKeyClock``; the key's device (the key broker's, or `HybridUHID`'s uhid device) or a test feeds it.
///
/// A forwarded request's answer goes to the host as soon as the phone replies; the ceremony's
/// tunnel then lingers in the background for a late update (the driver's linger, protocol.md
/// §7.5). At most one tunnel lingers: the next phone ceremony ends it, so a new request never
/// waits for it and a new QR code never competes with an old tunnel.
public actor SecurityKeyBridge {
    private var machine: CTAPHIDStateMachine
    private var cache: BridgeResponseCache
    private var policy: BridgeRequestPolicy
    private let knownCredentialsChanged: @Sendable (KnownCredentials) -> Void
    private let driver: any PhoneCeremonyDriver
    private let clock: SecurityKeyClock
    private let output: @Sendable ([UInt8]) -> Void
    private let events: @Sendable (SecurityKeyEvent) -> Void
    /// Each request being worked on: a hold, or a phone ceremony not yet answered.
    private var ongoing: [UInt64: OngoingRequest] = [:]
    /// The ceremony whose answer is out and whose tunnel lingers (§7.5).
    private var lingering: (id: UInt64, task: Task<Void, Never>)?
    private var timerWake: AsyncStream<Void>.Continuation?
    /// Whether a phone can be reached now (the Bluetooth adapter's presence).
    private var reachability: PhoneReachability = .reachable
    private var sleeping: (deadline: Duration, task: Task<Void, any Error>)?

    /// A bridge that starts with no remembered credential IDs and keeps what the phone teaches it
    /// in memory only.
    /// - Parameters:
    ///   - driver: runs each phone ceremony (``HybridPhoneDriver`` in production).
    ///   - clock: the time the CTAPHID timers and the answer cache run on.
    ///   - configuration: the CTAPHID device's limits and capabilities.
    ///   - output: writes one 64-byte input report to the host, in order.
    ///   - events: progress for the user; called from any task.
    public init(
        driver: any PhoneCeremonyDriver,
        clock: SecurityKeyClock = .continuous(),
        configuration: CTAPHIDStateMachine.Configuration = .init(),
        output: @escaping @Sendable ([UInt8]) -> Void,
        events: @escaping @Sendable (SecurityKeyEvent) -> Void = { _ in }
    ) {
        self.init(
            driver: driver, clock: clock, configuration: configuration, policy: BridgeRequestPolicy(), output: output,
            events: events
        )
    }

    /// - Parameters:
    ///   - policy: the request policy with its remembered credential IDs (loaded by the caller).
    ///   - knownCredentialsChanged: called with the policy's IDs after the phone taught it a new
    ///     one, to persist them (``KnownCredentialsFile``).
    ///   - output: writes one 64-byte input report to the host, in order.
    ///   - events: progress for the user; called from any task.
    package init(
        driver: any PhoneCeremonyDriver,
        clock: SecurityKeyClock = .continuous(),
        configuration: CTAPHIDStateMachine.Configuration = .init(),
        cache: BridgeResponseCache = .init(),
        policy: BridgeRequestPolicy,
        knownCredentialsChanged: @escaping @Sendable (KnownCredentials) -> Void = { _ in },
        output: @escaping @Sendable ([UInt8]) -> Void,
        events: @escaping @Sendable (SecurityKeyEvent) -> Void = { _ in }
    ) {
        self.machine = CTAPHIDStateMachine(configuration: configuration)
        self.cache = cache
        self.policy = policy
        self.knownCredentialsChanged = knownCredentialsChanged
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
        for (id, request) in ongoing {
            guard case .phone(let command) = request.kind else { continue }
            request.task.cancel()
            finished(id: id, command: command, forwarded: nil, result: .failure(CancelledOnThisComputer()))
        }
    }

    /// The Bluetooth adapter went away or came back (the executable's adapter watch). Going away
    /// fails every request waiting for the phone at once (CTAP1_ERR_OTHER, the reason in the
    /// ``SecurityKeyEvent/failed(command:status:message:)`` event), and requests that need the
    /// phone are refused at once until it is back.
    public func phoneReachabilityChanged(_ next: PhoneReachability) {
        guard next != reachability else { return }
        let failure = reachability.failsWaitingCeremonies(goingTo: next)
        reachability = next
        events(.phoneReachability(next))
        guard let failure else { return }
        for (id, request) in ongoing {
            guard case .phone(let command) = request.kind else { continue }
            request.task.cancel()
            finished(id: id, command: command, forwarded: nil, result: .failure(failure))
        }
    }

    /// Cancels every ceremony and ends the linger (on exit).
    public func shutdown() {
        for request in ongoing.values { request.task.cancel() }
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
                ongoing.removeValue(forKey: id)?.task.cancel()
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
        switch policy.decide(request, at: now) {
        case .answer(let bytes, let reason):
            events(
                .answeredLocally(command: command, status: CTAPStatusCode(rawValue: bytes.first ?? 0), reason: reason))
            respond(id: id, bytes)
        case .hold:
            machine.keepaliveStatusChanged(id: id, to: .userPresenceNeeded)
            let clock = self.clock
            let deadline = now + BridgeRequestPolicy.selectionHoldLimit
            let task = Task {
                guard (try? await clock.sleep(deadline)) != nil else { return }
                self.finished(
                    id: id, command: command, forwarded: nil,
                    result: .success([CTAPStatusCode.userActionTimeout.rawValue]))
            }
            ongoing[id] = OngoingRequest(task: task, kind: .hold)
        case .forward(let phoneRequest):
            endLinger()
            events(.forwarding(command: command, rpID: BridgeRequestPolicy.relyingPartyID(of: phoneRequest.bytes)))
            if case .refuse(let status, let message) = reachability.admission {
                // No QR code: no phone could answer it.
                events(.failed(command: command, status: status, message: message))
                return respond(id: id, [status.rawValue])
            }
            if !phoneRequest.rewrites.isEmpty { events(.rewritten(command: command, rewrites: phoneRequest.rewrites)) }
            let forwarded = Forwarded(host: request, phone: phoneRequest)
            let driver = self.driver
            let events = self.events
            let task = Task {
                do {
                    let end = try await driver.forward(phoneRequest.bytes, requestType: phoneRequest.type) { event in
                        events(.ceremony(event))
                        if case .qr = event { Task { await self.userNeeded(id: id) } }
                    } onReply: { reply in
                        await self.replied(id: id, command: command, forwarded: forwarded, reply: reply)
                    }
                    self.tunnelClosed(id: id, command: command, end: end)
                } catch {
                    self.finished(id: id, command: command, forwarded: forwarded, result: .failure(error))
                }
            }
            ongoing[id] = OngoingRequest(task: task, kind: .phone(command))
        }
    }

    /// The phone replied: the host gets the answer now, and the ceremony's task lingers.
    private func replied(id: UInt64, command: CTAPCommand, forwarded: Forwarded, reply: [UInt8]) {
        guard let request = ongoing[id] else { return }  // cancelled meanwhile
        lingering = (id, request.task)
        finished(id: id, command: command, forwarded: forwarded, result: .success(reply))
    }

    /// The tunnel of ceremony `id` closed after its linger.
    private func tunnelClosed(id: UInt64, command: CTAPCommand, end: HybridSessionEnd) {
        if lingering?.id == id { lingering = nil }
        // A driver that ended without a reply: the host still gets an answer.
        finished(
            id: id, command: command, forwarded: nil,
            result: .failure(HybridClientError.invalidResponse(.noReply)))
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

    /// A request in progress and the task working on it.
    private struct OngoingRequest {
        enum Kind {
            /// Held for the selection touch (``BridgeRequestPolicy``); no phone involved.
            case hold
            /// Forwarded to the phone, whose answer has not come yet.
            case phone(CTAPCommand)
        }
        var task: Task<Void, Never>
        var kind: Kind
    }

    /// A forwarded request: as the program sent it (the cache's key) and as the phone got it.
    private struct Forwarded: Sendable {
        var host: [UInt8]
        var phone: PhoneRequest
    }

    /// A ceremony (or hold) ended. `forwarded` is nil for a hold (never cached, no done event)
    /// and for a ceremony that ended without a reply.
    private func finished(id: UInt64, command: CTAPCommand, forwarded: Forwarded?, result: Result<[UInt8], any Error>) {
        guard ongoing.removeValue(forKey: id) != nil else { return }  // cancelled meanwhile
        switch result {
        case .success(let reply):
            if let forwarded {
                let now = clock.now()
                cache.store(reply, for: forwarded.host, at: now)
                if policy.phoneReplied(reply, to: forwarded.phone, at: now) {
                    knownCredentialsChanged(policy.knownCredentials)
                }
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

/// The bridge's time: a monotonic reading as a `Duration` since a fixed origin, and a sleep
/// until such a reading. Tests inject a manual one.
public struct SecurityKeyClock: Sendable {
    /// The current monotonic reading.
    public var now: @Sendable () -> Duration
    /// Sleeps until ``now`` reaches `until`; throws (`CancellationError`) if the task is cancelled.
    public var sleep: @Sendable (_ until: Duration) async throws -> Void

    /// A clock from a reading and a sleep (tests pass a manual clock's).
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
