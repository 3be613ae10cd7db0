/// A login session that may have a security key: the active session of a seat, local, unlocked,
/// of class `user`. The broker's I/O reads ``LoginSessionRecord``s from systemd-logind
/// (`org.freedesktop.login1`) and keeps only these.
package struct ActiveLocalSession: Hashable, Sendable {
    /// logind's session ID (`c1`, `3`).
    package var id: String
    /// The session's user.
    package var uid: UInt32
    /// The seat whose active session it is (`seat0`).
    package var seat: String

    package init(id: String, uid: UInt32, seat: String) {
        self.id = id
        self.uid = uid
        self.seat = seat
    }
}

/// What logind says of one session, as far as the broker's rule needs it
/// (`org.freedesktop.login1.Session` properties, and the seat's `ActiveSession`).
package struct LoginSessionRecord: Sendable, Equatable {
    package var id: String
    package var uid: UInt32
    /// The session's seat, empty for a seatless (SSH, cron) session.
    package var seat: String
    /// Whether this session is its seat's `ActiveSession`.
    package var isSeatsActiveSession: Bool
    /// The session's own `Active` property.
    package var active: Bool
    /// `Remote`: a login over the network (SSH, remote desktop).
    package var remote: Bool
    /// `LockedHint`: the screen locker reported the session locked.
    package var locked: Bool
    /// `Class`: `user` for a person's session (not `greeter`, `lock-screen`, `background`).
    package var sessionClass: String

    package init(
        id: String, uid: UInt32, seat: String, isSeatsActiveSession: Bool, active: Bool, remote: Bool, locked: Bool,
        sessionClass: String
    ) {
        self.id = id
        self.uid = uid
        self.seat = seat
        self.isSeatsActiveSession = isSeatsActiveSession
        self.active = active
        self.remote = remote
        self.locked = locked
        self.sessionClass = sessionClass
    }

    /// Whether this session may hold a key: the active session of a seat, by logind's two
    /// accounts of it (the seat's `ActiveSession` and the session's `Active`), local, unlocked and
    /// a person's (`user`) session.
    package var isActiveLocal: Bool {
        !seat.isEmpty && isSeatsActiveSession && active && !remote && !locked && sessionClass == "user"
    }
}

extension ActiveLocalSession {
    /// The sessions of `records` that may hold a key, one per seat at most, ordered by seat.
    package static func select(from records: [LoginSessionRecord]) -> [ActiveLocalSession] {
        var bySeat: [String: ActiveLocalSession] = [:]
        for record in records where record.isActiveLocal && bySeat[record.seat] == nil {
            bySeat[record.seat] = ActiveLocalSession(id: record.id, uid: record.uid, seat: record.seat)
        }
        return bySeat.keys.sorted().compactMap { bySeat[$0] }
    }
}
