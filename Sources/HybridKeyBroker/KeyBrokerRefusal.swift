/// Why the broker gives an agent no key, or takes its key away. The agent shows the description.
package enum KeyBrokerRefusal: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    /// The caller's user has no active local session: a background session after a user switch,
    /// a locked screen, a remote (SSH) login, or no seat at all.
    case sessionNotActive = 1
    /// Another agent of the same session already has the session's key.
    case keyInUse = 2
    /// The broker could not create the device (uhid missing, kernel refused).
    case deviceFailed = 3
    /// The agent asked for a protocol version this broker does not speak.
    case unsupportedVersion = 4
    /// The broker cannot reach logind, so it cannot tell whose session is active: no one gets a key.
    case sessionsUnknown = 5
    /// Too many agents are connected (the broker bounds its connections).
    case tooManyAgents = 6
    /// logind knows no session of the caller's user (not even a remote or background one).
    case noSession = 7

    package var description: String {
        switch self {
        case .sessionNotActive:
            "your session is not the active local session of a seat (switched away, locked, remote or seatless): no key"
        case .keyInUse: "another hybrid-security-key of your session already has the key"
        case .deviceFailed: "the key broker could not create the uhid device"
        case .unsupportedVersion: "the key broker speaks another protocol version (update both programs)"
        case .sessionsUnknown: "the key broker cannot reach systemd-logind, so no session gets a key"
        case .tooManyAgents: "the key broker serves too many agents"
        case .noSession: "systemd-logind knows no session of your user: no key"
        }
    }
}
