/// What logind says now, as far as the broker's rule needs it.
package struct LogindSnapshot: Sendable, Equatable {
    /// The sessions that may hold a key (``ActiveLocalSession/select(from:)``).
    package var activeLocalSessions: [ActiveLocalSession]
    /// Every user with a session of any kind (`ListSessions`): other uids are refused at once.
    package var usersWithSessions: Set<UInt32>

    package init(activeLocalSessions: [ActiveLocalSession], usersWithSessions: Set<UInt32>) {
        self.activeLocalSessions = activeLocalSessions
        self.usersWithSessions = usersWithSessions.union(activeLocalSessions.map(\.uid))
    }
}

/// The privileged key broker's decisions, sans-IO: agents (peers on its socket, with the uid the
/// kernel vouches for), logind's active sessions and the devices' results come in; create,
/// destroy, forward, send and disconnect come out.
///
/// The rule: a user's agent gets a key only while that user's session is the active local session
/// of a seat (``ActiveLocalSession``), at most one key per such session, and the key goes away the
/// moment the session stops being active (a user switch, the lock screen, logout) or logind
/// cannot be asked. A key is the FIDO HID device and nothing else: the policy has no action that
/// could create another descriptor. Agents whose session is not active wait on their connection,
/// told why, and get the key when their session becomes active again.
///
/// Connections are a bounded resource any local user could hold, so: a uid logind knows no session
/// of is refused at once; a connection that has not asked for a key within ``requestDeadline`` is
/// closed (the I/O wakes at ``nextDeadline`` and calls ``deadlinePassed(at:)``); and when the
/// bounds are reached, an agent of a user with an active local session still gets in: the oldest
/// agent without a key of a user without one makes room.
package struct KeyBrokerPolicy: Sendable {
    /// The broker's name for one agent connection (the I/O numbers them).
    package typealias AgentID = Int

    /// What the I/O must do, in order.
    package enum Action: Equatable, Sendable {
        /// Send `message` to the agent.
        case send(AgentID, BrokerMessage)
        /// Create the FIDO device for the agent, its hidraw node owned by `uid`; answer with
        /// ``KeyBrokerPolicy/deviceCreated(_:hidraw:)`` or ``KeyBrokerPolicy/deviceFailed(_:)``.
        case createDevice(AgentID, uid: UInt32)
        /// Destroy the agent's device (UHID_DESTROY): programs see the key unplugged.
        case destroyDevice(AgentID)
        /// Write this input report to the agent's device (UHID_INPUT2).
        case forwardInput(AgentID, [UInt8])
        /// Close the agent's connection (after any send before it).
        case disconnect(AgentID)
    }

    /// A point on the I/O's monotonic clock (the policy never reads a clock itself).
    package typealias Instant = ContinuousClock.Instant

    private enum AgentState: Sendable {
        /// Connected; has not asked for a key yet, and must by `deadline`.
        case connected(deadline: Instant)
        /// Asked; has no key (told why).
        case waiting
        /// Its device is being created for `session`.
        case creating(ActiveLocalSession)
        /// Holds the key of `session`.
        case served(ActiveLocalSession)

        var session: ActiveLocalSession? {
            switch self {
            case .creating(let session), .served(let session): session
            case .connected, .waiting: nil
            }
        }

        var deadline: Instant? {
            switch self {
            case .connected(let deadline): deadline
            case .waiting, .creating, .served: nil
            }
        }
    }

    private struct Agent: Sendable {
        var uid: UInt32
        var state: AgentState
    }

    /// Most agent connections at once, over all users.
    package let maximumAgents: Int
    /// Most agent connections of one user.
    package let maximumAgentsPerUser: Int
    /// How long a new connection may stay silent before it must have asked for a key.
    package let requestDeadline: Duration
    private var agents: [AgentID: Agent] = [:]
    /// `nil` until logind answered, and whenever it cannot be asked: then nobody has a key.
    private var sessions: [ActiveLocalSession]?
    /// The users logind knows a session of (any: seatless, remote, in the background), or `nil`
    /// while logind has not answered.
    private var usersWithSessions: Set<UInt32>?

    package init(maximumAgents: Int = 64, maximumAgentsPerUser: Int = 4, requestDeadline: Duration = .seconds(5)) {
        self.maximumAgents = maximumAgents
        self.maximumAgentsPerUser = maximumAgentsPerUser
        self.requestDeadline = requestDeadline
    }

    /// When the I/O must call ``deadlinePassed(at:)`` next (`nil`: no connection is on a deadline).
    package var nextDeadline: Instant? { agents.values.compactMap(\.state.deadline).min() }

    /// The session whose key `agent` holds, if any (for logs and tests).
    package func session(of agent: AgentID) -> ActiveLocalSession? {
        guard let record = agents[agent], case .served(let session) = record.state else { return nil }
        return session
    }

    // MARK: - Agents

    /// An agent connected at `now`; `uid` is its `SO_PEERCRED` user.
    package mutating func agentConnected(_ agent: AgentID, uid: UInt32, at now: Instant) -> [Action] {
        if let usersWithSessions, !usersWithSessions.contains(uid) {
            return [.send(agent, .refused(.noSession)), .disconnect(agent)]
        }
        guard agents.values.count(where: { $0.uid == uid }) < maximumAgentsPerUser else {
            return [.send(agent, .refused(.tooManyAgents)), .disconnect(agent)]
        }
        var actions: [Action] = []
        if agents.count >= maximumAgents {
            guard hasActiveLocalSession(uid), let evicted = oldestEvictable() else {
                return [.send(agent, .refused(.tooManyAgents)), .disconnect(agent)]
            }
            agents[evicted] = nil
            actions = [.send(evicted, .refused(.tooManyAgents)), .disconnect(evicted)]
        }
        agents[agent] = Agent(uid: uid, state: .connected(deadline: now + requestDeadline))
        return actions
    }

    /// The I/O's clock reached `now` (at or after ``nextDeadline``): connections that have not
    /// asked for a key in time are closed.
    package mutating func deadlinePassed(at now: Instant) -> [Action] {
        let late = agents.filter { $0.value.state.deadline.map { $0 <= now } ?? false }.keys.sorted()
        for agent in late { agents[agent] = nil }
        return late.map { .disconnect($0) }
    }

    /// The agent sent `datagram`. A malformed or out-of-turn message ends its connection (and key).
    package mutating func agentSent(_ agent: AgentID, datagram: [UInt8]) -> [Action] {
        guard let record = agents[agent] else { return [] }
        let message: AgentMessage
        do { message = try AgentMessage(decoding: datagram) } catch { return drop(agent) }
        switch (message, record.state) {
        case (.requestKey(let version), .connected(_)):
            guard version == KeyBrokerMessage.version else {
                agents[agent] = nil
                return [.send(agent, .refused(.unsupportedVersion)), .disconnect(agent)]
            }
            agents[agent]?.state = .waiting
            if let actions = grant(agent), !actions.isEmpty { return actions }
            return [.send(agent, .refused(refusal(for: record.uid)))]
        case (.requestKey, .waiting), (.requestKey, .creating), (.requestKey, .served):
            return drop(agent)
        case (.inputReport(let report), .served):
            return [.forwardInput(agent, report)]
        case (.inputReport, .connected(_)):
            return drop(agent)
        case (.inputReport, .waiting), (.inputReport, .creating):
            // Late reports of a key just removed, or early ones: nobody to give them to.
            return []
        }
    }

    /// The agent's connection closed.
    package mutating func agentDisconnected(_ agent: AgentID) -> [Action] {
        guard let record = agents.removeValue(forKey: agent) else { return [] }
        var actions: [Action] = []
        if record.state.session != nil { actions.append(.destroyDevice(agent)) }
        return actions + grantWaiting()
    }

    // MARK: - Sessions

    /// logind's active local sessions now, and the users with any session (`nil`: logind cannot be
    /// asked). Keys of sessions no longer active are destroyed at once; waiting agents of newly
    /// active sessions get theirs.
    package mutating func sessionsChanged(_ logind: LogindSnapshot?) -> [Action] {
        self.sessions = logind?.activeLocalSessions
        self.usersWithSessions = logind?.usersWithSessions
        var actions: [Action] = []
        for agent in agents.keys.sorted() {
            guard let record = agents[agent], let session = record.state.session else { continue }
            guard sessions?.contains(session) != true else { continue }
            agents[agent]?.state = .waiting
            actions += [.destroyDevice(agent), .send(agent, .removed(refusal(for: record.uid)))]
        }
        return actions + grantWaiting()
    }

    // MARK: - Devices

    /// The agent's device exists and its hidraw node belongs to the agent's user.
    package mutating func deviceCreated(_ agent: AgentID, hidraw: String) -> [Action] {
        guard let record = agents[agent], case .creating(let session) = record.state else {
            // The agent left, or its session went inactive, while the device was being made.
            return [.destroyDevice(agent)]
        }
        agents[agent]?.state = .served(session)
        return [.send(agent, .created(hidraw: hidraw))]
    }

    /// The agent's device could not be created. The agent waits; the next session change retries.
    package mutating func deviceFailed(_ agent: AgentID) -> [Action] {
        guard let record = agents[agent], case .creating = record.state else { return [] }
        agents[agent]?.state = .waiting
        return [.send(agent, .refused(.deviceFailed))]
    }

    /// A program wrote an output report to the agent's device.
    package func deviceOutput(_ agent: AgentID, report: [UInt8]) -> [Action] {
        guard session(of: agent) != nil, report.count == KeyBrokerMessage.reportSize else { return [] }
        return [.send(agent, .outputReport(report))]
    }

    /// The last program closed the agent's device.
    package func deviceClosed(_ agent: AgentID) -> [Action] {
        guard session(of: agent) != nil else { return [] }
        return [.send(agent, .closed)]
    }

    // MARK: - Rules

    /// Starts creating a key for `agent` if its user's session is active and has none yet.
    private mutating func grant(_ agent: AgentID) -> [Action]? {
        guard let record = agents[agent], case .waiting = record.state, let sessions else { return nil }
        let held = Set(agents.values.compactMap(\.state.session))
        guard let session = sessions.first(where: { $0.uid == record.uid && !held.contains($0) }) else { return nil }
        agents[agent]?.state = .creating(session)
        return [.createDevice(agent, uid: record.uid)]
    }

    /// ``grant(_:)`` for every waiting agent, oldest connection first.
    private mutating func grantWaiting() -> [Action] {
        agents.keys.sorted().flatMap { grant($0) ?? [] }
    }

    /// Whether `uid` has the active local session of a seat.
    private func hasActiveLocalSession(_ uid: UInt32) -> Bool {
        sessions?.contains { $0.uid == uid } == true
    }

    /// The oldest connection that may make room: an agent without a key (silent, or waiting) of a
    /// user without an active local session.
    private func oldestEvictable() -> AgentID? {
        agents.keys.sorted().first { agent in
            guard let record = agents[agent], record.state.session == nil else { return false }
            return !hasActiveLocalSession(record.uid)
        }
    }

    /// Why `uid`'s agent has no key now.
    private func refusal(for uid: UInt32) -> KeyBrokerRefusal {
        guard let sessions else { return .sessionsUnknown }
        return sessions.contains { $0.uid == uid } ? .keyInUse : .sessionNotActive
    }

    /// Ends `agent`'s connection for a protocol violation, and its key with it.
    private mutating func drop(_ agent: AgentID) -> [Action] {
        guard let record = agents.removeValue(forKey: agent) else { return [] }
        let destroy: [Action] = record.state.session != nil ? [.destroyDevice(agent)] : []
        return destroy + [.disconnect(agent)] + grantWaiting()
    }
}
