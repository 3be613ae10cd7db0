import Foundation

/// python-dbusmock servers on a private bus, for the D-Bus tests.
enum DBusMock {
    /// `system` or `session`: which bus the mock and gdbus think they are on.
    enum Bus: String {
        case system, session

        var addressVariable: String { self == .system ? "DBUS_SYSTEM_BUS_ADDRESS" : "DBUS_SESSION_BUS_ADDRESS" }
    }

    /// The environment that points D-Bus clients at `address` as `bus`.
    static func environment(_ bus: Bus, address: String) -> [String: String] {
        ProcessInfo.processInfo.environment.merging([bus.addressVariable: address]) { $1 }
    }

    /// Starts `python3 -m dbusmock --<bus> --template <template>` (plus `arguments`) on `address`.
    static func start(template: String, on bus: Bus, address: String, arguments: [String] = []) throws -> Process {
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        server.arguments = ["-m", "dbusmock", "--\(bus.rawValue)", "--template", template] + arguments
        server.environment = environment(bus, address: address)
        server.standardOutput = FileHandle.nullDevice
        try server.run()
        return server
    }

    /// Blocks until `name` has an owner on the bus: gdbus returns on that event (or fails after
    /// its own 60 s timeout). Whether it got one.
    static func waitForOwner(of name: String, on bus: Bus, address: String) throws -> Bool {
        let wait = Process()
        wait.executableURL = URL(fileURLWithPath: "/usr/bin/gdbus")
        wait.arguments = ["wait", "--\(bus.rawValue)", "--timeout", "60", name]
        wait.environment = environment(bus, address: address)
        try wait.run()
        wait.waitUntilExit()
        return wait.terminationStatus == 0
    }
}
