import ArgumentParser
import Foundation
import HybridKeyBroker

/// `hybrid-key-broker`: the one privileged part of the security key.
@main
struct KeyBrokerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hybrid-key-broker",
        abstract: "The security key's broker: one FIDO key per active local session.",
        discussion: """
            The privileged half of hybrid-security-key (docs/security-key.md). Run by systemd \
            (hybrid-key-broker.socket starts it on the first connection). It creates one kind of \
            device only, the FIDO HID key (usage page 0xF1D0), for an agent whose user's session is \
            the active local session of a seat (systemd-logind on the system bus), at most one per \
            session, with its /dev/hidrawN owned by that user (mode 0600), and removes it the moment \
            that session stops being active. It forwards 64-byte reports between the device and the \
            agent and nothing else.
            """
    )

    @Option(
        help: """
            Listen here instead of on the socket systemd passes (mode 0666; the policy decides). \
            Its directory must be writable by root (or you) alone.
            """)
    var socket: String?

    @Option(help: "The uhid device node.")
    var uhid = "/dev/uhid"

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let log: (String) -> Void = { line in FileHandle.standardError.write(Data("hybrid-key-broker: \(line)\n".utf8))
        }
        let listener: Int32
        do {
            if let activated = AgentListener.fromSystemd(environment: environment) {
                listener = activated
            } else if let socket {
                listener = try AgentListener.bind(path: socket)
            } else {
                throw ValidationError("no socket from systemd (LISTEN_FDS): pass --socket PATH")
            }
        }
        let logind: LogindSessions?
        do {
            logind = try LogindSessions()
        } catch {
            // Fail closed: without logind nobody's session is known to be active, so nobody gets
            // a key; the broker exits and systemd starts it again on the next connection.
            log("cannot reach systemd-logind: \(error)")
            throw ExitCode(1)
        }
        log("serving on \(socket ?? "the socket systemd passed")")
        do {
            try BrokerLoop(listener: listener, uhidPath: uhid, logind: logind, log: log).run()
        } catch {
            log("\(error): every key removed; exiting")
            throw ExitCode(1)
        }
    }
}
