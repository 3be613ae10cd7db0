import HybridKeyBroker
import HybridUHID

#if canImport(Glibc)
    import Glibc
#endif

/// The broker's I/O: one thread polls the agents' sockets, the uhid devices, the bus and /dev's
/// inotify events, feeds what happens to ``KeyBrokerPolicy`` and carries out its actions. Nothing
/// here decides who gets a key.
///
/// It blocks until one of them says something: no timer runs while it is idle. logind reports
/// every change the policy needs as a signal (the match on its name), and a restarted logind
/// changes the name's owner (NameOwnerChanged, followed by the connection), which asks again; a
/// new device's hidraw node is looked for when /dev changes, until its deadline.
final class BrokerLoop {
    /// How long the kernel and udev get to make a new device's hidraw node.
    static let hidrawDeadline = DeviceNodeWatch.hidrawDeadline
    /// The most times one wake-up asks logind in a row while its signals keep coming.
    static let resynchronizationRounds = 8

    private struct Device {
        var node: UHIDNode
        var uid: UInt32
        var uniq: String
        /// Until the hidraw node is handed over; nil once the agent was told.
        var pendingSince: ContinuousClock.Instant?
    }

    private var policy = KeyBrokerPolicy()
    private let listener: Int32
    private let uhidPath: String
    private let logind: LogindSessions?
    private var agents: [KeyBrokerPolicy.AgentID: Int32] = [:]
    private var devices: [KeyBrokerPolicy.AgentID: Device] = [:]
    private var nextAgent = 1
    /// The users with a logind session at the last look.
    private var knownUsers: Set<UInt32> = []
    private let log: (String) -> Void
    /// /dev's changes (nil if inotify is unavailable: then a pending node is looked for every 20 ms).
    private let nodes: DeviceNodeWatch?

    init(listener: Int32, uhidPath: String, logind: LogindSessions?, log: @escaping (String) -> Void) {
        self.listener = listener
        self.uhidPath = uhidPath
        self.logind = logind
        self.log = log
        do { nodes = try DeviceNodeWatch() } catch {
            log("cannot watch /dev (\(error)): new hidraw nodes are looked for every 20 ms")
            nodes = nil
        }
    }

    /// Serves until the bus connection drops (then every key is removed, and the caller exits so
    /// that systemd starts a fresh broker on the next connection).
    func run() throws {
        resynchronize()
        while true {
            var entries = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
            let agentOrder = agents.keys.sorted()
            entries += agentOrder.map { pollfd(fd: agents[$0]!, events: Int16(POLLIN), revents: 0) }
            let deviceOrder = devices.keys.sorted()
            entries += deviceOrder.map { pollfd(fd: devices[$0]!.node.descriptor, events: Int16(POLLIN), revents: 0) }
            let bus = try logind?.descriptor()
            if let bus { entries.append(pollfd(fd: bus, events: Int16(POLLIN), revents: 0)) }
            if let nodes { entries.append(pollfd(fd: nodes.descriptor, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&entries, nfds_t(entries.count), pollTimeout())
            if ready < 0 && errno != EINTR { throw BrokerError.system("poll", errno) }
            if let nodes, entries[entries.count - 1].revents != 0 { nodes.drain() }

            var index = 1
            for agent in agentOrder {
                if entries[index].revents != 0 { readAgent(agent) }
                index += 1
            }
            for agent in deviceOrder {
                if entries[index].revents != 0 { readDevice(agent) }
                index += 1
            }
            if bus != nil, entries[index].revents != 0 {
                do {
                    if try logind?.drain() == true { resynchronize() }
                } catch {
                    perform(policy.sessionsChanged(nil))
                    throw error
                }
            }
            if entries[0].revents != 0 { acceptAgents() }
            handOverNewNodes()
            // After the agents' messages: one that asked just in time keeps its connection.
            if let deadline = policy.nextDeadline, deadline <= .now { perform(policy.deadlinePassed(at: .now)) }
        }
    }

    /// Until the earliest deadline: a pending node's, or the policy's (a connection that has not
    /// asked in time); forever when there is none.
    private func pollTimeout() -> Int32 {
        let nodeDeadlines = devices.values.compactMap { $0.pendingSince.map { $0 + Self.hidrawDeadline } }
        if nodes == nil && !nodeDeadlines.isEmpty { return 20 }
        guard let earliest = (nodeDeadlines + [policy.nextDeadline].compactMap { $0 }).min() else { return -1 }
        return DeviceNodeWatch.pollMilliseconds(until: earliest)
    }

    // MARK: - Events in

    private func resynchronize() {
        guard let logind else { return perform(policy.sessionsChanged(nil)) }
        do {
            // A user switch is several signals (the old session inactive, the seat's new active
            // session, the new session active). Those that come while logind answers are read by
            // the calls, not by the poll, and may describe a state newer than the answers: so
            // logind is asked again until a round passes without one (a few rounds at most).
            for _ in 0..<Self.resynchronizationRounds {
                _ = logind.takeSignal()
                // The seats' active sessions first, so that a key whose session went inactive goes
                // at once; the users with a session (only for admitting connections) after.
                let active = ActiveLocalSession.select(from: try logind.records())
                perform(
                    policy.sessionsChanged(LogindSnapshot(activeLocalSessions: active, usersWithSessions: knownUsers)))
                knownUsers = try logind.usersWithSessions()
                perform(
                    policy.sessionsChanged(LogindSnapshot(activeLocalSessions: active, usersWithSessions: knownUsers)))
                _ = try logind.drain()  // what libdbus read behind the last reply
                guard logind.takeSignal() else { break }
            }
        } catch {
            log("logind cannot be asked (\(error)): no session has a key")
            perform(policy.sessionsChanged(nil))
        }
    }

    private func acceptAgents() {
        while let (fd, uid) = AgentListener.accept(from: listener) {
            let agent = nextAgent
            nextAgent += 1
            agents[agent] = fd
            log("agent \(agent): uid \(uid) connected")
            perform(policy.agentConnected(agent, uid: uid, at: .now))
        }
    }

    private func readAgent(_ agent: KeyBrokerPolicy.AgentID) {
        while let fd = agents[agent] {
            switch AgentListener.receive(from: fd) {
            case .nothing: return
            case .datagram(let bytes): perform(policy.agentSent(agent, datagram: bytes))
            case .oversized: perform(policy.agentSent(agent, datagram: []))
            case .endOfStream:
                close(fd)
                agents[agent] = nil
                log("agent \(agent): gone")
                perform(policy.agentDisconnected(agent))
                return
            }
        }
    }

    private func readDevice(_ agent: KeyBrokerPolicy.AgentID) {
        while let device = devices[agent] {
            let event: UHIDEvent?
            do { event = try device.node.readEvent() } catch { return }
            guard let event else { return }
            switch event {
            case .output(let report): perform(policy.deviceOutput(agent, report: report))
            case .close: perform(policy.deviceClosed(agent))
            case .start, .stop, .open: break
            }
        }
    }

    /// Hands each new device's hidraw node to its user once the kernel made it.
    private func handOverNewNodes() {
        for agent in devices.keys.sorted() {
            guard let device = devices[agent], let since = device.pendingSince else { continue }
            do {
                if let path = try HidrawOwnership.grant(uniq: device.uniq, to: device.uid) {
                    devices[agent]?.pendingSince = nil
                    log("agent \(agent): key \(path) for uid \(device.uid)")
                    perform(policy.deviceCreated(agent, hidraw: path))
                } else if ContinuousClock.now - since >= Self.hidrawDeadline {
                    log("agent \(agent): no hidraw node within \(Self.hidrawDeadline) (is hid_generic loaded?)")
                    destroyDevice(agent)
                    perform(policy.deviceFailed(agent))
                }
            } catch {
                log("agent \(agent): \(error)")
                destroyDevice(agent)
                perform(policy.deviceFailed(agent))
            }
        }
    }

    // MARK: - Actions out

    private func perform(_ actions: [KeyBrokerPolicy.Action]) {
        for action in actions {
            switch action {
            case .send(let agent, let message):
                guard let fd = agents[agent] else { continue }
                if !AgentListener.send(message.encoded, to: fd) {
                    close(fd)
                    agents[agent] = nil
                    log("agent \(agent): cannot take messages; disconnected")
                    perform(policy.agentDisconnected(agent))
                }
            case .createDevice(let agent, let uid):
                createDevice(agent, uid: uid)
            case .destroyDevice(let agent):
                destroyDevice(agent)
                log("agent \(agent): key removed")
            case .forwardInput(let agent, let report):
                do { try devices[agent]?.node.send(report) } catch { log("agent \(agent): \(error)") }
            case .disconnect(let agent):
                if let fd = agents.removeValue(forKey: agent) { close(fd) }
                log("agent \(agent): disconnected by the broker")
            }
        }
    }

    private func createDevice(_ agent: KeyBrokerPolicy.AgentID, uid: UInt32) {
        var identity = UHIDDevice.Identity()
        identity.uniq = "hybrid-key-broker-\(getpid())-\(agent)"
        do {
            let node = try UHIDNode(identity: identity, path: uhidPath, nonBlocking: true)
            devices[agent] = Device(node: node, uid: uid, uniq: identity.uniq, pendingSince: .now)
        } catch {
            log("agent \(agent): \(error)")
            perform(policy.deviceFailed(agent))
        }
    }

    private func destroyDevice(_ agent: KeyBrokerPolicy.AgentID) {
        guard let device = devices.removeValue(forKey: agent) else { return }
        device.node.destroy()
        device.node.close()
    }
}
