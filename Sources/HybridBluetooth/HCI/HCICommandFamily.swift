/// Which HCI command family drives advertising and scanning.
///
/// Core spec Vol 4 Part E §3.1.1: once a host has used the extended advertising commands, a
/// controller rejects the legacy ones with Command Disallowed (0x0C) until reset, and vice versa.
public enum HCICommandFamily: Sendable, Hashable {
    /// Legacy commands first; extended ones when the controller rejects legacy commands with Command
    /// Disallowed or Unknown HCI Command, or when the advert is too long for a legacy PDU.
    case automatic
    /// LE Set Advertising Parameters/Data/Enable and LE Set Scan Parameters/Enable only.
    case legacy
    /// LE Set Extended Advertising Parameters/Data/Enable and LE Set Extended Scan Parameters/Enable.
    case extended
}
