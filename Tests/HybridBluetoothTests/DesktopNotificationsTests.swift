import Foundation
import Testing

@testable import HybridPresentation

/// `DesktopNotifications` against a real session bus (`dbus-daemon --session`) and python-dbusmock's
/// `notification_daemon` template as the independent notification server: the server's own log
/// must record our `Notify` calls with the summary, body and QR image path.
@Suite(.serialized) struct DesktopNotificationsTests {
    /// A private session bus with a mock notification server; stopped by `stop()`.
    final class SessionBus {
        let address: String
        let log: URL
        private let daemon: Process
        private let server: Process

        init() throws {
            let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("notify-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            log = directory.appendingPathComponent("notifications.log")
            daemon = Process()
            daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
            daemon.arguments = ["--session", "--nofork", "--nopidfile", "--print-address=1"]
            let output = Pipe()
            daemon.standardOutput = output
            try daemon.run()
            // The daemon prints its address once it listens: waiting for that line is the event.
            var line: [UInt8] = []
            while let byte = try output.fileHandleForReading.read(upToCount: 1)?.first, byte != 0x0a {
                line.append(byte)
            }
            address = String(decoding: line, as: UTF8.self)
            server = try DBusMock.start(
                template: "notification_daemon", on: .session, address: address, arguments: ["-l", log.path])
            guard try DBusMock.waitForOwner(of: "org.freedesktop.Notifications", on: .session, address: address) else {
                throw Failure("notification server never appeared")
            }
        }

        /// SIGKILL: dbusmock's main loop does not end on SIGTERM.
        func stop() {
            kill(server.processIdentifier, SIGKILL)
            kill(daemon.processIdentifier, SIGKILL)
            server.waitUntilExit()
            daemon.waitUntilExit()
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    @Test func notificationsReachTheSessionServerWithTheQRImage() async throws {
        let bus = try SessionBus()
        defer { bus.stop() }
        // Only this suite uses the session bus; libdbus reads the variable when it connects.
        setenv("DBUS_SESSION_BUS_ADDRESS", bus.address, 1)
        defer { unsetenv("DBUS_SESSION_BUS_ADDRESS") }
        let notifications = DesktopNotifications(applicationName: "hybrid-security-key")
        #expect(
            await notifications.show(
                summary: "Scan the QR code", body: "with your phone", imagePath: "/tmp/qr-test.png"))
        #expect(await notifications.show(summary: "Approve on your phone", body: "example.com"))
        let log = try String(contentsOf: bus.log, encoding: .utf8)
        let calls = log.split(separator: "\n").filter { $0.contains("Notify") }
        #expect(calls.count == 2)
        #expect(calls.first?.contains("\"hybrid-security-key\"") == true)
        #expect(calls.first?.contains("Scan the QR code") == true)
        #expect(calls.first?.contains("/tmp/qr-test.png") == true)
        #expect(calls.last?.contains("Approve on your phone") == true)
    }

    @Test func withoutASessionBusShowReportsFailure() async {
        setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus", 1)
        defer { unsetenv("DBUS_SESSION_BUS_ADDRESS") }
        #expect(
            await DesktopNotifications(applicationName: "hybrid-security-key").show(summary: "s", body: "b") == false)
    }
}
