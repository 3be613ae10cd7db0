import Foundation
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
    public init?(name: String, adapter: String?, air: SimulatedAir) {
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

/// Why a `--ble` argument was refused.
public enum BLEBackendArgumentError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not `hci`, `bluez` or `sim`.
    case unknown(String)
    /// `sim` without `HYBRID_ALLOW_SIMULATED_AIR=1`.
    case simulatedAirNotAllowed

    /// One line for a user.
    public var description: String {
        switch self {
        case .unknown(let name): "--ble must be hci, bluez or sim, not \"\(name)\""
        case .simulatedAirNotAllowed:
            "--ble sim is the simulated air for tests and demos (no radio, no authentication): "
                + "set \(SimulatedAir.allowVariable)=1 to use it"
        }
    }
}

extension BLEBackend {
    /// Parses a command line's `--ble` value like ``init(name:adapter:air:)``, accepting the
    /// simulated air only when `environment` has ``SimulatedAir/allowVariable`` = `1`, so that a
    /// release binary never ends up on it by accident.
    public init(
        argument name: String, adapter: String?,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(BLEBackendArgumentError) {
        guard
            let backend = BLEBackend(
                name: name, adapter: adapter,
                air: SimulatedAir(directory: SimulatedAir.defaultDirectory(environment: environment)))
        else {
            throw .unknown(name)
        }
        if case .simulated = backend, environment[SimulatedAir.allowVariable] != "1" {
            throw .simulatedAirNotAllowed
        }
        self = backend
    }
}
