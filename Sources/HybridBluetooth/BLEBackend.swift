import Logging

/// Which Bluetooth implementation the roles use (`--ble hci|bluez|sim`, `--adapter hciN`).
public enum BLEBackend: Sendable, Hashable {
    /// Raw HCI sockets through libbluetooth: no daemon needed, but CAP_NET_RAW/CAP_NET_ADMIN (or
    /// root), and it competes with bluetoothd for the controller. For headless and embedded machines.
    /// `adapter` is `hciN`; `nil` means the first adapter that is up.
    case hci(adapter: String?)
    /// bluetoothd's D-Bus API (`org.bluez`) on the system bus (`DBUS_SYSTEM_BUS_ADDRESS` honoured):
    /// what a desktop user without root uses. `adapter` is `hciN`; `nil` means the first one bluetoothd
    /// offers.
    case bluez(adapter: String?)
    /// The loopback **simulation** (``SimulatedAir``), for tests and the demo; no radio involved.
    case simulated(SimulatedAir)

    /// Parses a `--ble` value: `hci`, `bluez` or `sim`; `nil` for anything else.
    public init?(name: String, adapter: String?, air: SimulatedAir = SimulatedAir()) {
        switch name {
        case "hci": self = .hci(adapter: adapter)
        case "bluez": self = .bluez(adapter: adapter)
        case "sim", "simulated": self = .simulated(air)
        default: return nil
        }
    }

    /// The default rule: ``bluez(adapter:)`` when bluetoothd owns `org.bluez` on the system bus,
    /// else ``hci(adapter:)``.
    public static func automatic(adapter: String?, bluetoothdReachable: Bool) -> BLEBackend {
        bluetoothdReachable ? .bluez(adapter: adapter) : .hci(adapter: adapter)
    }

    /// Short name for logs: `hci`, `bluez` or `sim`.
    public var name: String {
        switch self {
        case .hci: "hci"
        case .bluez: "bluez"
        case .simulated: "sim"
        }
    }
}
