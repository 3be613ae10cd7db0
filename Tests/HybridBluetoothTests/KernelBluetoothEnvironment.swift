import Foundation

@testable import HybridBluetooth

/// When the tests that need a kernel with Bluetooth run.
///
/// `ci/ble-in-vm.sh` sets `HYBRID_BLE_PROOF=hci` or `=bluez` inside the blevm guest: the requested
/// suite then runs and fails loudly if the kernel lacks Bluetooth. Without the variable the suites run
/// only where `socket(AF_BLUETOOTH)` works and two adapters exist (never on our hosts, whose kernel
/// has no Bluetooth: they are skipped there).
enum KernelBluetoothEnvironment {
    enum Proof: String {
        case hci, bluez
        /// An LE L2CAP channel between hci0 and hci1: needs the mgmt LE setting and hci0
        /// advertising connectable (ci/ble-in-vm.sh sets both), so it runs only when requested.
        case l2cap
    }

    static let requested: Set<String> = Set(
        (ProcessInfo.processInfo.environment["HYBRID_BLE_PROOF"] ?? "").split(separator: ",").map(String.init)
    )

    static var kernelHasBluetooth: Bool { HCIAdapter.kernelHasBluetooth }

    static func shouldRun(_ proof: Proof) async -> Bool {
        if !requested.isEmpty { return requested.contains(proof.rawValue) }
        if proof == .l2cap { return false }
        guard kernelHasBluetooth, HCIAdapter.allIDs().count >= 2 else { return false }
        // Raw HCI fights bluetoothd for the controller, so each proof needs its own setup.
        return await BluetoothdProbe.isReachable() == (proof == .bluez)
    }

    /// Prints a `TIMING` line that ci/run-ble-proof.sh collects into the guest timing table.
    static func recordTiming(_ label: String, _ duration: Duration) {
        let milliseconds = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        print("TIMING \(label): \(String(format: "%.0f", milliseconds)) ms")
    }
}
