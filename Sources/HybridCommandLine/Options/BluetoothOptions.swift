import ArgumentParser
import HybridBluetooth

/// `--ble` and `--adapter`: the Bluetooth a ceremony runs on (`hybrid-client`,
/// `hybrid-security-key`, `hybrid-authenticator`, `hybrid-conformance client` and `phone`).
package struct BluetoothOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Bluetooth backend: bluez (bluetoothd over D-Bus), hci (raw HCI, needs CAP_NET_RAW/CAP_NET_ADMIN), "
                + "or sim (the loopback simulated air of $HYBRID_SIMULATED_AIR_DIR, for tests and demos). "
                + "Default: bluez when bluetoothd runs, else hci.",
            valueName: "backend"))
    package var ble: String?

    @Option(
        help: ArgumentHelp("Bluetooth adapter, e.g. hci0 (hci or bluez). Default: the first one.", valueName: "hciN"))
    package var adapter: String?

    package init() {}

    package func validate() throws {
        if let ble {
            do { _ = try BLEBackend(argument: ble, adapter: adapter) } catch {
                throw ValidationError(error.description)
            }
        }
    }

    /// The backend `--ble` names, else the automatic choice (bluez if bluetoothd runs, else hci).
    package func backend() async -> BLEBackend {
        if let ble, let named = try? BLEBackend(argument: ble, adapter: adapter) { return named }
        return await BLEBackend.automatic(adapter: adapter)
    }
}
