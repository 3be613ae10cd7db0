#if canImport(Glibc)
    import Glibc
#endif

/// Whether the Bluetooth adapter a role uses is there and powered, decided from what the kernel
/// or bluetoothd report. I/O-free: ``AdapterWatch`` (or a test) feeds it observations and acts on
/// the changes it returns.
///
/// ```
/// present ── down / unregistered / ENETDOWN / ENODEV / Powered false / Adapter1 removed ──▶ absent(why)
/// absent  ── up / device info "up" / Powered true / Adapter1 added (powered) ─────────────▶ present
/// ```
///
/// It starts `present` (a role that has not looked yet assumes its adapter is there); the first
/// observation that says otherwise reports ``Change/vanished(_:)``. Repeated observations of the
/// same state report nothing.
package struct AdapterPresence: Sendable, Equatable {
    /// Where the adapter stands.
    package enum State: Sendable, Equatable {
        /// There and powered: requests may go to the phone.
        case present
        /// Missing, powered off or blocked; the error says which, in words a person can act on.
        case absent(BluetoothError)
    }

    /// A device event of the kernel's HCI layer (`HCI_EV_SI_DEVICE` on a raw HCI socket bound to
    /// no device; the values of `HCI_DEV_REG` … `HCI_DEV_DOWN`).
    package enum HCIDeviceEvent: UInt16, Sendable, Hashable {
        /// A controller was added (`HCI_DEV_REG`).
        case registered = 1
        /// A controller was removed (`HCI_DEV_UNREG`).
        case unregistered = 2
        /// A controller was brought up (`HCI_DEV_UP`).
        case up = 3
        /// A controller went down: powered off, or blocked by rfkill (`HCI_DEV_DOWN`).
        case down = 4
    }

    /// One thing the kernel or bluetoothd said.
    package enum Observation: Sendable, Hashable {
        /// An HCI device event for adapter `hci<id>` (other adapters' events are ignored).
        case hciDeviceEvent(HCIDeviceEvent, id: Int32)
        /// `HCIGETDEVINFO` answered for the adapter, with its `HCI_UP` flag.
        case deviceInfo(isUp: Bool)
        /// A call on the adapter (its socket, `HCIGETDEVINFO`) failed with `errno`. `ENODEV` and
        /// `EPIPE` (a socket detached from a removed device) mean removed, `ENETDOWN` down,
        /// `ERFKILL` blocked; other values say nothing about presence and are ignored.
        case systemCallFailed(errno: Int32)
        /// bluetoothd: `org.bluez.Adapter1.Powered` of the object at `path` changed.
        case poweredChanged(path: String, powered: Bool)
        /// bluetoothd: `InterfacesRemoved` for the object at `path`.
        case interfacesRemoved(path: String, interfaces: [String])
        /// bluetoothd: `InterfacesAdded` for the object at `path`; `powered` is its
        /// `Adapter1.Powered`, if the signal carried it.
        case interfacesAdded(path: String, interfaces: [String], powered: Bool?)
    }

    /// A change the role must act on.
    package enum Change: Sendable, Equatable {
        /// The adapter went away: fail what waits for the phone, refuse new requests with this error.
        case vanished(BluetoothError)
        /// The adapter is back: requests may go to the phone again.
        case returned
    }

    /// The adapter watched, `hciN`.
    package let adapter: String
    /// Where the adapter stands now.
    package private(set) var state: State = .present

    /// The kernel's index of ``adapter`` (`hci1` is 1), if its name has that form.
    private var index: Int32? { adapter.hasPrefix("hci") ? Int32(adapter.dropFirst(3)) : nil }
    /// bluetoothd's object path for ``adapter``.
    private var objectPath: String { "/org/bluez/\(adapter)" }
    private static let adapterInterface = "org.bluez.Adapter1"

    /// - Parameter adapter: the adapter to watch, `hciN`.
    package init(adapter: String) {
        self.adapter = adapter
    }

    /// Whether requests may go to the phone now.
    package var isPresent: Bool { state == .present }

    /// Takes one observation; returns the change it makes, if any.
    package mutating func observe(_ observation: Observation) -> Change? {
        guard let next = verdict(on: observation) else { return nil }
        guard next != state else { return nil }
        state = next
        switch next {
        case .present: return .returned
        case .absent(let why): return .vanished(why)
        }
    }

    /// The state `observation` shows, or `nil` when it says nothing about this adapter.
    private func verdict(on observation: Observation) -> State? {
        switch observation {
        case .hciDeviceEvent(let event, let id):
            guard id == index else { return nil }
            switch event {
            // A registered controller is still down until it is brought up.
            case .registered, .down: return .absent(.adapterDown(adapter))
            case .unregistered: return .absent(.noAdapter(adapter))
            case .up: return .present
            }
        case .deviceInfo(let isUp):
            return isUp ? .present : .absent(.adapterDown(adapter))
        case .systemCallFailed(let code):
            switch code {
            case ENODEV, EPIPE: return .absent(.noAdapter(adapter))
            case ENETDOWN: return .absent(.adapterDown(adapter))
            case ERFKILL: return .absent(.fromErrno(ERFKILL, operation: "use \(adapter)", adapter: adapter))
            default: return nil
            }
        case .poweredChanged(let path, let powered):
            guard path == objectPath else { return nil }
            return powered ? .present : .absent(.adapterDown(adapter))
        case .interfacesRemoved(let path, let interfaces):
            guard path == objectPath, interfaces.contains(Self.adapterInterface) else { return nil }
            return .absent(.noAdapter(adapter))
        case .interfacesAdded(let path, let interfaces, let powered):
            guard path == objectPath, interfaces.contains(Self.adapterInterface) else { return nil }
            return powered == true ? .present : .absent(.adapterDown(adapter))
        }
    }
}
