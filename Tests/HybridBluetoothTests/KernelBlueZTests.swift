import Foundation
import Testing

@testable import HybridBluetooth
@testable import HybridDBus

/// bluetoothd's D-Bus API on the real kernel stack: blevm guest, `btvirt -l2`, dbus-daemon and
/// bluetoothd running. bluetoothd drives the 5.2 controllers with extended advertising and scanning.
@Suite(.serialized, .timeLimit(.minutes(5)), .enabled { await KernelBluetoothEnvironment.shouldRun(.bluez) })
struct KernelBlueZTests {
    /// One scanner for hci1 shared by the tests (scans wait for the previous one to end).
    static let scanner = BlueZDBusScanner(adapter: "hci1", logger: TestSupport.logger)

    init() throws {
        try #require(
            KernelBluetoothEnvironment.kernelHasBluetooth,
            "HYBRID_BLE_PROOF=bluez but the kernel has no AF_BLUETOOTH"
        )
    }

    @Test func caBLEEIDFromHci0ReachesHci1ThroughBluetoothd() async throws {
        let eid = Fixture.androidEID
        let advertiser = BlueZDBusAdvertiser(adapter: "hci0", logger: TestSupport.logger)
        let clock = ContinuousClock()
        let started = clock.now
        let stream = try await Self.scanner.scan()
        let scanning = clock.now
        try await advertiser.startAdvertising(BLEServiceDataAdvert(serviceData: eid))
        let advertising = clock.now
        let advert = try await TestSupport.firstAdvert(from: stream, within: .seconds(20)) { $0.serviceData == eid }
        let received = clock.now
        await advertiser.stopAdvertising()
        KernelBluetoothEnvironment.recordTiming("bluez scan start", scanning - started)
        KernelBluetoothEnvironment.recordTiming("bluez advertising start", advertising - scanning)
        KernelBluetoothEnvironment.recordTiming("bluez advert received after start", received - advertising)
        KernelBluetoothEnvironment.recordTiming("bluez stop", clock.now - received)
        let found = try #require(advert, "hci1 received no advert with the EID within 20 s")
        #expect(found.uuid16 == BLEServiceUUID.fido)
        #expect(found.serviceData.count == 20)
    }

    /// Control: the advert is heard. Then bluetoothd's own count of registered adverts on hci0
    /// (`LEAdvertisingManager1.ActiveInstances`, updated before UnregisterAdvertisement replies) drops
    /// back: a state read after the call, not a time window waited out. That the air follows the
    /// controller's state is the HCI tests' part (KernelHCITests.stoppedAdvertisingIsGone).
    @Test func stoppedAdvertisingIsGone() async throws {
        let before = try Self.activeAdvertisingInstances(adapter: "hci0")
        let advertiser = BlueZDBusAdvertiser(adapter: "hci0", logger: TestSupport.logger)
        let stream = try await Self.scanner.scan()
        try await advertiser.startAdvertising(BLEServiceDataAdvert(serviceData: TestSupport.eid(4)))
        #expect(try Self.activeAdvertisingInstances(adapter: "hci0") == before + 1)
        let control = try await TestSupport.firstAdvert(from: stream, within: .seconds(20)) {
            $0.serviceData == TestSupport.eid(4)
        }
        #expect(control != nil)
        await advertiser.stopAdvertising()
        #expect(
            try Self.activeAdvertisingInstances(adapter: "hci0") == before,
            "advert still registered after stopAdvertising()")
    }

    /// bluetoothd's `ActiveInstances` on `adapter`: how many adverts are registered with it.
    static func activeAdvertisingInstances(adapter: String) throws -> Int {
        let connection = try DBusConnection()
        try connection.followOwner(of: BlueZ.service)
        let reply = try connection.call(
            .methodCall(
                destination: BlueZ.service, path: "/org/bluez/\(adapter)", interface: BlueZ.propertiesInterface,
                member: "Get", arguments: [.string(BlueZ.advertisingManagerInterface), .string("ActiveInstances")]),
            adapter: adapter)
        guard case .byte(let count)? = reply.first?.unwrapped else {
            throw BluetoothError.bluezFailed(name: "ActiveInstances", message: "not a byte: \(reply)")
        }
        return Int(count)
    }

    @Test func unknownAdapterIsReported() async throws {
        await #expect(throws: BluetoothError.noAdapter("hci9")) {
            try await BlueZDBusAdvertiser(adapter: "hci9", logger: TestSupport.logger)
                .startAdvertising(BLEServiceDataAdvert(serviceData: [1]))
        }
        await #expect(throws: BluetoothError.noAdapter("hci9")) {
            _ = try await BlueZDBusScanner(adapter: "hci9", logger: TestSupport.logger).scan()
        }
    }

    @Test func defaultBackendIsBlueZWhenBluetoothdRuns() async {
        #expect(await BLEBackend.automatic(adapter: nil) == .bluez(adapter: nil))
    }
}
