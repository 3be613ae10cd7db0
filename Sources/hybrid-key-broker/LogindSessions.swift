import HybridDBus
import HybridKeyBroker

/// The active session of each seat, from systemd-logind on the system bus
/// (`org.freedesktop.login1`, its documented D-Bus API), and the signals that say it may have
/// changed. Only the unique name that owns `org.freedesktop.login1` is believed: a process that
/// sends a look-alike signal or reply is ignored (``DBusConnection/followOwner(of:)``).
final class LogindSessions {
    private static let name = "org.freedesktop.login1"
    private let connection: DBusConnection
    /// Whether logind said something since ``takeSignal()`` last looked, wherever it was read: a
    /// signal that arrives while a method call waits for its reply is read (and dispatched) there,
    /// and never makes the socket readable again.
    private var signalled = false

    /// Connects to the system bus (`DBUS_SYSTEM_BUS_ADDRESS` if set) and subscribes to every
    /// signal logind sends (seat and session property changes, new and removed sessions, locks).
    init() throws {
        connection = try DBusConnection()
        try connection.addMatch("type='signal',sender='\(Self.name)'")
        try connection.followOwner(of: Self.name)
        connection.onIncoming = { [weak self] _ in self?.signalled = true }
    }

    /// Whether logind sent anything since the last call (and forgets it).
    func takeSignal() -> Bool {
        defer { signalled = false }
        return signalled
    }

    /// The bus socket, to poll.
    func descriptor() throws -> Int32 { try connection.unixDescriptor() }

    /// Reads what arrived; whether anything did (then the sessions may have changed).
    func drain() throws -> Bool { try connection.drainIncoming() > 0 }

    /// The active session of every seat, as logind reports it now.
    func records() throws -> [LoginSessionRecord] {
        let seats = try call(
            path: "/org/freedesktop/login1", interface: "org.freedesktop.login1.Manager", member: "ListSeats")
        var records: [LoginSessionRecord] = []
        for seat in Self.array(seats.first) {
            guard case .structure(let fields) = seat, fields.count == 2, let seatID = fields[0].string,
                let seatPath = fields[1].string
            else { continue }
            let seatProperties = try properties(of: seatPath, interface: "org.freedesktop.login1.Seat")
            guard case .structure(let active)? = seatProperties["ActiveSession"]?.unwrapped, active.count == 2,
                let sessionID = active[0].string, !sessionID.isEmpty, let sessionPath = active[1].string
            else { continue }
            let session = try properties(of: sessionPath, interface: "org.freedesktop.login1.Session")
            guard case .structure(let user)? = session["User"]?.unwrapped, case .uint32(let uid)? = user.first else {
                continue
            }
            var sessionSeat = ""
            if case .structure(let seatField)? = session["Seat"]?.unwrapped, let id = seatField.first?.string {
                sessionSeat = id
            }
            records.append(
                LoginSessionRecord(
                    id: session["Id"]?.string ?? sessionID, uid: uid, seat: sessionSeat,
                    isSeatsActiveSession: sessionSeat == seatID && (session["Id"]?.string ?? sessionID) == sessionID,
                    active: session["Active"]?.bool ?? false, remote: session["Remote"]?.bool ?? true,
                    locked: session["LockedHint"]?.bool ?? false, sessionClass: session["Class"]?.string ?? ""))
        }
        return records
    }

    /// Every user logind has a session of, of any kind (`ListSessions`: seatless, remote and
    /// background sessions included).
    func usersWithSessions() throws -> Set<UInt32> {
        let sessions = try call(
            path: "/org/freedesktop/login1", interface: "org.freedesktop.login1.Manager", member: "ListSessions")
        var users: Set<UInt32> = []
        for session in Self.array(sessions.first) {
            // a(susso): session ID, uid, user name, seat ID, object path.
            guard case .structure(let fields) = session, fields.count == 5, case .uint32(let uid) = fields[1] else {
                continue
            }
            users.insert(uid)
        }
        return users
    }

    private func properties(of path: String, interface: String) throws -> [String: DBusValue] {
        let reply = try call(
            path: path, interface: "org.freedesktop.DBus.Properties", member: "GetAll", arguments: [.string(interface)])
        return reply.first?.stringKeyedEntries ?? [:]
    }

    private func call(path: String, interface: String, member: String, arguments: [DBusValue] = []) throws
        -> [DBusValue]
    {
        try connection.call(
            .methodCall(destination: Self.name, path: path, interface: interface, member: member, arguments: arguments),
            timeoutMilliseconds: 2_000)
    }

    private static func array(_ value: DBusValue?) -> [DBusValue] {
        guard case .array(_, let elements)? = value?.unwrapped else { return [] }
        return elements
    }
}
