import Foundation
import Testing

@testable import HybridBluetooth

/// On a kernel without Bluetooth (our hosts) the raw-HCI backend must say so, not crash or hang.
@Suite(.enabled(if: !HCIAdapter.kernelHasBluetooth, "the kernel has Bluetooth"))
struct HostWithoutBluetoothTests {
    static let reason = BluetoothError.fromErrno(EAFNOSUPPORT, operation: "socket(AF_BLUETOOTH)", adapter: nil)

    @Test func hciAdvertiserReportsMissingKernelSupport() async {
        await #expect(throws: Self.reason) {
            try await HCIAdvertiser(adapter: nil, logger: TestSupport.logger).startAdvertising(
                BLEServiceDataAdvert(serviceData: [1])
            )
        }
    }

    @Test func hciScannerReportsMissingKernelSupport() async {
        await #expect(throws: Self.reason) {
            _ = try await HCIScanner(adapter: "hci0", logger: TestSupport.logger).scan()
        }
    }
}
