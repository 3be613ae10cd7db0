import NIOCore
import NIOPosix

/// HAProxy's runtime API on its `stats socket` (deploy/haproxy.cfg: `level admin`): what its
/// health checks decided about each server. Shared by the fleet tests and `relay-bench --fault-run`.
package struct HAProxyRuntimeAPI: Sendable {
    /// A server's `srv_op_state` in `show servers state`.
    package enum ServerState: Int, Sendable {
        case down = 0
        case starting = 1
        case up = 2
        case stopping = 3
    }

    package struct StateNotReached: Error, CustomStringConvertible {
        package let backend: String
        package let server: String
        package let state: ServerState
        package var description: String { "HAProxy never reported \(backend)/\(server) \(state)" }

        package init(backend: String, server: String, state: ServerState) {
            self.backend = backend
            self.server = server
            self.state = state
        }
    }

    package let socketPath: String

    package init(socketPath: String) {
        self.socketPath = socketPath
    }

    /// Sends one command and reads the answer (HAProxy closes the connection after it).
    package func command(_ line: String) async throws -> String {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(unixDomainSocketPath: socketPath) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(string: line + "\n"))
            var text = ""
            for try await chunk in inbound { text += String(buffer: chunk) }
            return text
        }
    }

    /// The state of every server of `backend`, by server name, from `show servers state`.
    package func serverStates(backend: String) async throws -> [String: ServerState] {
        Self.parseServerStates(try await command("show servers state \(backend)"), backend: backend)
    }

    /// `show servers state` lines: `be_id be_name srv_id srv_name srv_addr srv_op_state …`
    /// after a version line and a `#` header.
    package static func parseServerStates(_ text: String, backend: String) -> [String: ServerState] {
        var states: [String: ServerState] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: " ")
            guard fields.count > 5, fields[1] == backend, let raw = Int(fields[5]),
                let state = ServerState(rawValue: raw)
            else {
                continue
            }
            states[String(fields[3])] = state
        }
        return states
    }

    /// Polls every `interval` until HAProxy reports `server` of `backend` in `state`; returns
    /// the instant it first saw it. HAProxy 2.6 has no event subscription on this socket, so
    /// polling is the closest to the event. `deadline` only bounds a hang. For the benchmark's
    /// timings; tests wait for HAProxy's own stderr announcement instead (`HAProxyLog`).
    @discardableResult
    package func waitFor(
        _ server: String, in backend: String, state: ServerState,
        interval: Duration = .milliseconds(50), deadline: Duration = .seconds(60)
    ) async throws -> ContinuousClock.Instant {
        let clock = ContinuousClock()
        let end = clock.now + deadline
        while true {
            if try await serverStates(backend: backend)[server] == state { return clock.now }
            guard clock.now < end else { throw StateNotReached(backend: backend, server: server, state: state) }
            try await clock.sleep(for: interval)
        }
    }
}
