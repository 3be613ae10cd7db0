import HybridCTAP
import HybridClient
import HybridCore

/// The virtual security key as one sans-IO core: reports from the host, the phone task's
/// outcomes and clock readings go in, actions come out. It owns the one request in flight (a
/// key has one user: its ID, its CTAPHID channel, the KEEPALIVE every 100 ms that keeps its
/// program waiting, its answer) and every deadline of the key: its own (KEEPALIVE, the selection
/// hold, the linger's end) and those of ``CTAPHIDStateMachine``, its framing and channel layer
/// (a stalled message's timeout, a LOCK's end), which is told the request's channel with each
/// report and records no request itself. ``nextDeadline`` says when to
/// call ``tick(at:)``; ``SecurityKeyBridge`` is the thin actor that runs the phone task and
/// sleeps until then.
///
/// A request in flight is held (authenticatorSelection and device-selection touches, until the
/// program cancels or ``BridgeRequestPolicy/selectionHoldLimit`` passes) or at the phone (one
/// ceremony, from ``Action/startCeremony(id:request:)`` until ``phoneReplied(id:reply:at:)``,
/// ``phoneFailed(id:error:at:)`` or ``phoneTunnelClosed(id:end:at:)``). Every other request is
/// answered within the input that completes it: getInfo, probes, refusals, the cache
/// (``BridgeResponseCache``), all decided by ``BridgeRequestPolicy``. After the phone's answer
/// its tunnel lingers for a late update (protocol.md §7.5) until the phone closes it, the linger's
/// deadline passes, the next phone ceremony starts or ``shutdown()``: the core remembers which
/// ceremony lingers and until when, and the last three end it (``Action/endLinger(id:)``).
///
/// While the phone is unreachable (``phoneReachabilityChanged(unreachableBecause:at:)``, e.g. no
/// Bluetooth adapter), a request that needs the phone is refused at once with
/// ``PhoneUnreachable/status`` instead of showing a QR code no phone can answer, and a ceremony in
/// flight fails with it; requests answered locally are served as always.
package struct SecurityKeyStateMachine: Sendable {
    /// What the key's shell does next, in order.
    package enum Action: Equatable, Sendable {
        /// Write this message's reports to the host.
        case send(CTAPHIDMessage)
        /// Run a phone ceremony for request `id`; report its outcome with ``phoneReplied(id:reply:at:)``,
        /// ``phoneFailed(id:error:at:)`` and ``phoneTunnelClosed(id:end:at:)``.
        case startCeremony(id: UInt64, request: PhoneRequest)
        /// Stop the ceremony of request `id` before its answer (its outcome is ignored).
        case cancelCeremony(id: UInt64)
        /// End the linger of the answered ceremony `id` (its tunnel closes).
        case endLinger(id: UInt64)
        /// Report this to the user.
        case event(SecurityKeyEvent)
        /// The phone taught the policy a credential ID: persist these (``KnownCredentialsFile``).
        case knownCredentialsChanged(KnownCredentials)
    }

    /// A request forwarded to the phone: as the program sent it (the cache's key) and as the
    /// phone got it.
    private struct Forwarded: Sendable {
        var host: [UInt8]
        var phone: PhoneRequest
    }

    /// The CBOR request being served, from its last report until its answer or cancellation:
    /// the program on `channel` waits for it, kept waiting by a KEEPALIVE saying `keepalive`,
    /// while it is decided, held or at the phone (`stage`).
    private struct InFlight: Sendable {
        var id: UInt64
        var channel: UInt32
        var keepalive: CTAPHIDKeepaliveStatus
        var nextKeepalive: Duration
        var stage: Stage = .deciding
    }

    /// Where an answered ceremony's tunnel stands.
    private enum Linger: Sendable, Equatable {
        /// Open for a late update until this deadline.
        case until(Duration)
        /// Ended by this core at its deadline, its close not seen yet: the close is reported as
        /// the linger's expiry (or as closed at once for a zero linger), not as a cancellation.
        case expired
    }

    /// What the request in flight waits for.
    private enum Stage: Sendable {
        /// Nothing yet: the policy decides it within the input that completed it.
        case deciding
        /// Held for a selection touch until `deadline` (then CTAP2_ERR_USER_ACTION_TIMEOUT).
        case held(deadline: Duration)
        /// At the phone, whose answer has not come yet.
        case atPhone(command: CTAPCommand, Forwarded)
    }

    private var transport: CTAPHIDStateMachine
    private var policy: BridgeRequestPolicy
    private var cache: BridgeResponseCache
    /// The one request in flight (a key has one user), if any.
    private var inFlight: InFlight?
    private var nextRequestID: UInt64 = 1
    /// KEEPALIVE period while a request is in flight; CTAP 2.2 §11.2.9.1.4 asks for at most 100 ms.
    private let keepaliveInterval: Duration
    /// How long a ceremony's tunnel stays open after its answer for a late update.
    private let linger: Duration
    /// The tunnel of each answered ceremony, by ID, until it closes: at most one lingers; one
    /// whose linger this core ended at its deadline may still be closing when the next lingers.
    private var lingers: [UInt64: Linger] = [:]
    /// Why no phone can be reached now (the Bluetooth adapter's error), or `nil`.
    private var unreachable: PhoneUnreachable?

    /// - Parameters:
    ///   - transport: the CTAPHID layer (its configuration and channel-ID source).
    ///   - policy: what to do with each request, with its remembered credential IDs.
    ///   - cache: the phone's recent answers.
    ///   - linger: how long a ceremony's tunnel stays open after the answer for a late update
    ///     (protocol.md §7.5); by default Chromium's three minutes.
    ///   - keepaliveInterval: the KEEPALIVE period while a request is in flight (at most 100 ms).
    package init(
        transport: CTAPHIDStateMachine = .init(), policy: BridgeRequestPolicy = .init(),
        cache: BridgeResponseCache = .init(), linger: Duration = HybridClientOptions.defaultLinger,
        keepaliveInterval: Duration = .milliseconds(100)
    ) {
        self.transport = transport
        self.policy = policy
        self.cache = cache
        self.linger = linger
        self.keepaliveInterval = keepaliveInterval
    }

    /// The ceremony whose tunnel lingers, and until when.
    private var lingering: (id: UInt64, until: Duration)? {
        for (id, linger) in lingers { if case .until(let deadline) = linger { return (id, deadline) } }
        return nil
    }

    /// The request in flight, if it is at the phone: its ID, its command and what was forwarded.
    private var atPhone: (id: UInt64, command: CTAPCommand, forwarded: Forwarded)? {
        guard let current = inFlight, case .atPhone(let command, let forwarded) = current.stage else { return nil }
        return (current.id, command, forwarded)
    }

    /// When ``tick(at:)`` must run next: a KEEPALIVE, a message timeout, a lock's end, the end
    /// of a selection hold or the end of a linger.
    package var nextDeadline: Duration? {
        var deadlines = [transport.nextDeadline, inFlight?.nextKeepalive, lingering?.until]
        if case .held(let deadline) = inFlight?.stage { deadlines.append(deadline) }
        return deadlines.compactMap { $0 }.min()
    }

    /// The request in flight, if any: its ID and CTAPHID channel.
    package var requestInFlight: (id: UInt64, channel: UInt32)? { inFlight.map { ($0.id, $0.channel) } }

    /// The ceremony whose tunnel lingers after its answer, if any.
    package var lingeringCeremony: UInt64? { lingering?.id }

    // MARK: - Host

    /// One output report from the host (64 bytes, without a report-ID byte).
    package mutating func reportReceived(_ report: some Collection<UInt8>, at now: Duration) -> [Action] {
        transported(transport.reportReceived(report, requestInFlight: inFlight?.channel, at: now), at: now)
    }

    /// The host closed the device: the request in flight ends; a linger goes on.
    package mutating func deviceClosed(at now: Duration) -> [Action] {
        transport.deviceClosed()
        return cancelRequest(reason: .deviceClosed)
    }

    /// What is due at `now`: KEEPALIVEs, message timeouts, the end of a selection hold, the end
    /// of a linger (the shell closes that tunnel; ``phoneTunnelClosed(id:end:at:)`` follows).
    package mutating func tick(at now: Duration) -> [Action] {
        var actions = transported(transport.tick(at: now), at: now)
        if let current = inFlight, now >= current.nextKeepalive {
            let next = now + keepaliveInterval
            inFlight?.nextKeepalive = next
            actions.append(
                .send(
                    CTAPHIDMessage(channel: current.channel, command: .keepalive, payload: [current.keepalive.rawValue])
                )
            )
        }
        if let current = inFlight, case .held(let deadline) = current.stage, now >= deadline {
            actions += respond(id: current.id, [CTAPStatusCode.userActionTimeout.rawValue], at: now)
        }
        if let current = lingering, now >= current.until {
            lingers[current.id] = .expired
            actions.append(.endLinger(id: current.id))
        }
        return actions
    }

    // MARK: - Phone

    /// The ceremony of request `id` showed its QR code: KEEPALIVEs say UPNEEDED from now on.
    package mutating func phoneNeedsUser(id: UInt64) {
        if inFlight?.id == id { inFlight?.keepalive = .userPresenceNeeded }
    }

    /// The phone answered request `id` (status + CBOR): the host gets it now, the answer is
    /// cached, and the ceremony's tunnel lingers.
    package mutating func phoneReplied(id: UInt64, reply: [UInt8], at now: Duration) -> [Action] {
        guard let (current, command, forwarded) = atPhone, current == id else { return [] }  // cancelled meanwhile
        lingers[id] = .until(now + linger)
        cache.store(reply, for: forwarded.host, at: now)
        var actions: [Action] = []
        if policy.phoneReplied(reply, to: forwarded.phone, at: now) {
            actions.append(.knownCredentialsChanged(policy.knownCredentials))
        }
        actions.append(.event(.done(command: command, status: CTAPStatusCode(rawValue: reply.first ?? 0))))
        return actions + respond(id: id, reply, at: now)
    }

    /// The phone task of request `id` failed before the phone answered, with `error`
    /// (``CeremonyFailureStatus`` gives the host's status).
    package mutating func phoneFailed(id: UInt64, error: any Error, at now: Duration) -> [Action] {
        guard atPhone?.id == id else { return [] }  // answered or cancelled meanwhile
        return fail(id: id, status: CeremonyFailureStatus.status(for: error), message: "\(error)", at: now)
    }

    /// The tunnel of ceremony `id` closed (after its linger, or without a reply, which the host
    /// then gets as a failure).
    package mutating func phoneTunnelClosed(id: UInt64, end: HybridSessionEnd, at now: Duration) -> [Action] {
        var end = end
        if lingers.removeValue(forKey: id) == .expired, end.reason == .cancelled {
            end.reason = linger > .zero ? .lingerExpired : .closedAtOnce
        }
        guard atPhone?.id == id else { return [.event(.tunnelClosed(end))] }
        return phoneFailed(id: id, error: HybridClientError.invalidResponse(.noReply), at: now) + [
            .event(.tunnelClosed(end))
        ]
    }

    /// The Bluetooth adapter went away, for `reason` (a person's text, e.g. "Bluetooth adapter
    /// hci1 is down: …"), or came back (`nil`), as an adapter watch reports it. Going away fails
    /// the ceremony in flight at once with ``PhoneUnreachable/status``, and requests that need the
    /// phone are refused with it until the adapter is back. A report of the unchanged state
    /// changes nothing.
    package mutating func phoneReachabilityChanged(unreachableBecause reason: String?, at now: Duration) -> [Action] {
        guard reason != unreachable?.reason else { return [] }
        unreachable = reason.map(PhoneUnreachable.init(reason:))
        let changed = Action.event(.phoneReachability(unreachableBecause: reason))
        guard let unreachable, let id = atPhone?.id else { return [changed] }
        return [changed, .cancelCeremony(id: id)]
            + fail(id: id, status: PhoneUnreachable.status, message: unreachable.description, at: now)
    }

    /// The person cancelled on this computer: the request at the phone ends, its program gets
    /// CTAP2_ERR_KEEPALIVE_CANCEL (as after its own CTAPHID_CANCEL) and the ceremony stops.
    package mutating func cancelledOnThisComputer(at now: Duration) -> [Action] {
        guard let id = atPhone?.id else { return [] }
        return [.cancelCeremony(id: id)] + phoneFailed(id: id, error: CancelledOnThisComputer(), at: now)
    }

    /// On exit: the ceremony in flight stops and the linger ends; nothing is answered.
    package mutating func shutdown() -> [Action] {
        var actions: [Action] = []
        if let id = atPhone?.id { actions.append(.cancelCeremony(id: id)) }
        inFlight?.stage = .deciding  // nothing is answered: the phone's outcome is ignored
        return actions + endLingering()
    }

    // MARK: - Requests

    /// The CTAPHID layer's actions, with each CBOR request it completes decided and each one it
    /// cancels ended.
    private mutating func transported(_ actions: [CTAPHIDStateMachine.Action], at now: Duration) -> [Action] {
        var result: [Action] = []
        result.reserveCapacity(actions.count)
        for action in actions {
            switch action {
            case .send(let message):
                result.append(.send(message))
            case .reject(let rejection):
                result.append(.send(rejection.message))
            case .startRequest(let channel, let payload):
                let id = nextRequestID
                nextRequestID += 1
                inFlight = InFlight(
                    id: id, channel: channel, keepalive: .processing,
                    nextKeepalive: now + keepaliveInterval)
                result += start(id: id, request: payload, at: now)
            case .cancelRequest(let reason):
                result += cancelRequest(reason: reason)
            case .wink:
                result.append(.event(.wink))
            case .ignore:
                break
            }
        }
        return result
    }

    private mutating func start(id: UInt64, request: [UInt8], at now: Duration) -> [Action] {
        let command = CTAPCommand(rawValue: request.first ?? 0)
        if let cached = cache.answer(to: request, at: now) {
            let event = SecurityKeyEvent.answeredLocally(
                command: command, status: .ok, reason: "the same request was answered moments ago")
            return [.event(event)] + respond(id: id, cached, at: now)
        }
        switch policy.decide(request, at: now) {
        case .answer(let bytes, let reason):
            let status = CTAPStatusCode(rawValue: bytes.first ?? 0)
            return [.event(.answeredLocally(command: command, status: status, reason: reason))]
                + respond(id: id, bytes, at: now)
        case .hold:
            inFlight?.keepalive = .userPresenceNeeded
            inFlight?.stage = .held(deadline: now + BridgeRequestPolicy.selectionHoldLimit)
            return []
        case .forward(let phoneRequest):
            if let unreachable {
                return [
                    .event(.failed(command: command, status: PhoneUnreachable.status, message: unreachable.description))
                ]
                    + respond(id: id, [PhoneUnreachable.status.rawValue], at: now)
            }
            var actions = endLingering()  // a new ceremony ends it
            actions.append(.event(.forwarding(command: command, rpID: phoneRequest.relyingPartyID)))
            if !phoneRequest.rewrites.isEmpty {
                actions.append(.event(.rewritten(command: command, rewrites: phoneRequest.rewrites)))
            }
            inFlight?.stage = .atPhone(command: command, Forwarded(host: request, phone: phoneRequest))
            actions.append(.startCeremony(id: id, request: phoneRequest))
            return actions
        }
    }

    /// Ends the tunnel that lingers, if any, before its deadline: its close reads as a cancellation.
    private mutating func endLingering() -> [Action] {
        guard let current = lingering else { return [] }
        lingers[current.id] = nil
        return [.endLinger(id: current.id)]
    }

    /// Request `id` at the phone ends with `status` (no answer from the phone).
    private mutating func fail(id: UInt64, status: CTAPStatusCode, message: String, at now: Duration) -> [Action] {
        guard let (current, command, _) = atPhone, current == id else { return [] }  // answered or cancelled meanwhile
        return [.event(.failed(command: command, status: status, message: message))]
            + respond(id: id, [status.rawValue], at: now)
    }

    /// The answer to request `id` goes to its channel; dropped if the request was cancelled.
    private mutating func respond(id: UInt64, _ payload: [UInt8], at now: Duration) -> [Action] {
        guard let current = inFlight, current.id == id else { return [] }
        inFlight = nil
        return [.send(CTAPHIDMessage(channel: current.channel, command: .cbor, payload: payload))]
    }

    /// The request in flight ends unanswered (the program cancelled it or went away).
    private mutating func cancelRequest(reason: CTAPHIDCancelReason) -> [Action] {
        guard let current = inFlight else { return [] }
        inFlight = nil
        var actions: [Action] = []
        if case .atPhone = current.stage { actions.append(.cancelCeremony(id: current.id)) }
        actions.append(.event(.cancelled(reason)))
        return actions
    }
}
