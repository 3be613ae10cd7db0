import Foundation
import TestChildProcess

/// A private system bus for one test: `dbus-daemon` running a copy of Debian's
/// `/usr/share/dbus-1/system.conf`, its policy (`<deny own="*"/>`, `<deny send_type="method_call"/>`,
/// `<allow send_type="signal"/>`, requested replies only) kept as it is. Adapted only so that it
/// runs unprivileged and self-contained: no `<user>`, `<fork/>`, `<pidfile>`, `<syslog/>`, service
/// helper or activation directories, no includes of the host's policy files, a listening socket in
/// a fresh 0700 temporary directory, and one hole punched the way BlueZ's own `bluetooth.conf`
/// does for bluetoothd: the current user may own `org.bluez` and call it.
final class PrivateSystemBus: Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static let stockConfiguration = "/usr/share/dbus-1/system.conf"

    let address: String
    let directory: URL
    private let daemon: UncheckedSendableProcess

    private init(address: String, directory: URL, daemon: Process) {
        self.address = address
        self.directory = directory
        self.daemon = UncheckedSendableProcess(daemon)
    }

    /// The stock policy with the adaptations above, listening on `socket`.
    static func configuration(stock: String, socket: String, user: String) throws -> String {
        var lines: [String] = []
        var listens = 0
        for line in stock.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            let dropped = [
                "<user>", "<fork/>", "<pidfile>", "<syslog/>", "<servicehelper>", "<standard_system_servicedirs/>",
                "<includedir>", "<include ",
            ]
            if dropped.contains(where: trimmed.hasPrefix) { continue }
            if trimmed.hasPrefix("<listen>") {
                listens += 1
                lines.append("  <listen>unix:path=\(socket)</listen>")
                continue
            }
            if trimmed == "</busconfig>" {
                lines.append(
                    "  <policy user=\"\(user)\"><allow own=\"org.bluez\"/><allow send_destination=\"org.bluez\"/></policy>"
                )
            }
            lines.append(String(line))
        }
        guard listens == 1, stock.contains("<deny own=\"*\"/>"), stock.contains("<allow send_type=\"signal\"/>") else {
            throw Failure("\(stockConfiguration) does not look like Debian's system bus policy")
        }
        return lines.joined(separator: "\n")
    }

    /// Starts the daemon and returns once it listens (it prints its address then).
    static func start() async throws -> PrivateSystemBus {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("system-bus-\(UUID())")
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let user = try requireUser()
        let stock = try String(contentsOfFile: stockConfiguration, encoding: .utf8)
        let file = directory.appendingPathComponent("system.conf")
        try configuration(stock: stock, socket: directory.appendingPathComponent("bus").path, user: user)
            .write(to: file, atomically: false, encoding: .utf8)
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--config-file=\(file.path)", "--nofork", "--nopidfile", "--print-address=1"]
        let (lines, errors) = try ChildProcess.startStreamingLines(daemon)
        var iterator = lines.makeAsyncIterator()
        guard let address = await iterator.next(), !address.isEmpty else {
            var text = ""
            for await line in errors { text += line + "\n" }
            throw Failure("dbus-daemon did not start: \(text)")
        }
        return PrivateSystemBus(address: address, directory: directory, daemon: daemon)
    }

    private static func requireUser() throws -> String {
        guard let entry = getpwuid(getuid()), let name = entry.pointee.pw_name else {
            throw Failure("no user name for uid \(getuid())")
        }
        return String(cString: name)
    }

    /// python-dbusmock's `bluez5` template on this bus, returned once it owns `org.bluez`.
    func startMockBluetoothd() async throws -> MockBluetoothd {
        let address = self.address
        let mock = MockBluetoothd(try DBusMock.start(template: "bluez5", on: .system, address: address))
        // Blocking, so off the cooperative pool.
        let owned = await ChildProcess.offPool {
            (try? DBusMock.waitForOwner(of: "org.bluez", on: .system, address: address)) ?? false
        }
        guard owned else {
            await mock.stop()
            throw Failure("the mock bluetoothd never owned org.bluez")
        }
        return mock
    }

    /// Kills the daemon and removes the directory.
    func stop() {
        kill(daemon.value.processIdentifier, SIGKILL)
        daemon.value.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// The mock bluetoothd process; ``stop()`` kills it (dbusmock's main loop ignores SIGTERM).
struct MockBluetoothd: Sendable {
    private let process: UncheckedSendableProcess
    init(_ process: Process) { self.process = UncheckedSendableProcess(process) }

    func stop() async {
        kill(process.value.processIdentifier, SIGKILL)
        _ = await ChildProcess.exitStatus(of: process.value)
    }
}

/// A `Process` handed between tasks; only kill and wait are called on it.
struct UncheckedSendableProcess: @unchecked Sendable {
    let value: Process
    init(_ value: Process) { self.value = value }
}
