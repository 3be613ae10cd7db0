import HybridKeyBroker
import HybridUHID

#if canImport(Glibc)
    import Glibc
#endif

/// The broker's I/O: one thread polls the agents' sockets, the uhid devices and the bus, feeds
/// what happens to ``KeyBrokerPolicy`` and carries out its actions. Nothing here decides who gets
/// a key.
final class BrokerLoop {
    /// How long the kernel and udev get to make a new device's hidraw node.
    static let hidrawDeadline: Duration = .seconds(3)
    /// logind is asked again this often even without a signal (a restarted logind, a missed signal).
    static let resyncInterval: Duration = .seconds(5)

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
    /// When logind is asked again without a signal: a ``resyncInterval`` after the last event.
    private var nextResync = ContinuousClock.now
    private let log: (String) -> Void

    init(listener: Int32, uhidPath: String, logind: LogindSessions?, log: @escaping (String) -> Void) {
        self.listener = listener
        self.uhidPath = uhidPath
        self.logind = logind
        self.log = log
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
            let pending = devices.values.contains { $0.pendingSince != nil }
            let wake = min(nextResync, policy.nextDeadline ?? nextResync)
            let ready = poll(&entries, nfds_t(entries.count), pending ? 20 : Self.milliseconds(until: wake))
            if ready < 0 && errno != EINTR { throw BrokerError.system("poll", errno) }
            // Asked again after a quiet resyncInterval only (as before the deadlines): while
            // agents talk, logind's signals keep the sessions current.
            if ready > 0 {
                nextResync = .now + Self.resyncInterval
            } else if !pending && nextResync <= .now {
                resynchronize()
            }

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

    /// poll's timeout until `deadline`, rounded up (never early).
    private static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let (seconds, attoseconds) = (deadline - .now).components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        let milliseconds = seconds * 1_000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: milliseconds)
    }

    // MARK: - Events in

    private func resynchronize() {
        nextResync = .now + Self.resyncInterval
        guard let logind else { return perform(policy.sessionsChanged(nil)) }
        do {
            // The seats' active sessions first, so that a key whose session went inactive goes at
            // once; the users with a session (only for admitting connections) after.
            let active = ActiveLocalSession.select(from: try logind.records())
            perform(policy.sessionsChanged(LogindSnapshot(activeLocalSessions: active, usersWithSessions: knownUsers)))
            knownUsers = try logind.usersWithSessions()
            perform(policy.sessionsChanged(LogindSnapshot(activeLocalSessions: active, usersWithSessions: knownUsers)))
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
                } else if ContinuousClock.now - since > Self.hidrawDeadline {
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
