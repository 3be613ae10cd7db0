import ArgumentParser
import HybridBluetooth

/// `--ble` and `--adapter`: the Bluetooth a ceremony runs on (`hybrid-client`,
/// `hybrid-security-key`, `hybrid-conformance client` and `phone`).
package struct BluetoothOptions: ParsableArguments {
    @Option(
        help:
            "Bluetooth backend: bluez (bluetoothd), hci (raw HCI, root) or sim (simulated air, for tests). Default: bluez if bluetoothd runs, else hci."
    )
    package var ble: String?

    @Option(help: "Bluetooth adapter, e.g. hci0. Default: the first one.")
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
