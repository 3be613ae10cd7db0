import Foundation
import Synchronization
import Testing

@testable import HybridBluetooth

#if canImport(Glibc)
    import Glibc
#endif

/// Raw HCI on the real kernel stack: blevm guest, `btvirt -l2` (hci0 and hci1 on one virtual air,
/// Bluetooth 5.2 controllers), no bluetoothd. btvirt 5.66 delivers one report per advertising or
/// scan enable and always RSSI 127, so nothing here asserts on RSSI or repeats.
@Suite(.serialized, .timeLimit(.minutes(5)), .enabled { await KernelBluetoothEnvironment.shouldRun(.hci) })
struct KernelHCITests {
    /// One scanner per adapter and command family, shared by the tests, so a scan always waits for
    /// the previous scan on its adapter to switch off (see ScanRunner).
    static let scanners: [HCICommandFamily: HCIScanner] = [
        .automatic: HCIScanner(adapter: "hci1", commandFamily: .automatic, logger: TestSupport.logger),
        .legacy: HCIScanner(adapter: "hci1", commandFamily: .legacy, logger: TestSupport.logger),
        .extended: HCIScanner(adapter: "hci1", commandFamily: .extended, logger: TestSupport.logger),
    ]
    static var scanner: HCIScanner { scanners[.automatic]! }

    init() throws {
        try #require(
            KernelBluetoothEnvironment.kernelHasBluetooth,
            "HYBRID_BLE_PROOF=hci but the kernel has no AF_BLUETOOTH"
        )
    }

    @Test(arguments: [HCICommandFamily.automatic, .legacy, .extended])
    func caBLEEIDFromHci0ReachesHci1(family: HCICommandFamily) async throws {
        let eid = Fixture.androidEID
        let scanner = try #require(Self.scanners[family])
        let advertiser = HCIAdvertiser(adapter: "hci0", commandFamily: family, logger: TestSupport.logger)
        let clock = ContinuousClock()
        let started = clock.now
        let stream = try await scanner.scan()
        let scanning = clock.now
        try await advertiser.startAdvertising(BLEServiceDataAdvert(serviceData: eid))
        let advertising = clock.now
        // Our advert comes from a fresh random address: recognise it by its service data.
        let advert = try await TestSupport.firstAdvert(from: stream, within: .seconds(10)) {
            $0.uuid16 == BLEServiceUUID.fido && $0.serviceData == eid
        }
        let received = clock.now
        await advertiser.stopAdvertising()
        KernelBluetoothEnvironment.recordTiming("hci \(family) scan start", scanning - started)
        KernelBluetoothEnvironment.recordTiming("hci \(family) advertising start", advertising - scanning)
        KernelBluetoothEnvironment.recordTiming("hci \(family) advert received after start", received - advertising)
        KernelBluetoothEnvironment.recordTiming("hci \(family) stop", clock.now - received)
        let found = try #require(advert, "hci1 received no 0xFFF9 advert within 10 s")
        #expect(found.serviceData == eid)
        #expect(found.serviceData.count == 20)
        // A non-resolvable private address (report Address_Type 0x01), never hci0's public one.
        let hci0 = try #require(HCIAdapter.address(of: "hci0"))
        #expect(found.addressType == .random)
        #expect(found.address != hci0)
        #expect(found.address.isNonResolvablePrivate, "\(found.address) is no non-resolvable private address")
    }

    /// With pinned random draws, the air carries exactly the addresses they give (so the address
    /// bytes reach the controller in the right order), and restarting the advert (a new EID) takes a
    /// new draw and so a new address.
    @Test(arguments: [HCICommandFamily.legacy, .extended])
    func everyAdvertStartTakesANewRandomAddress(family: HCICommandFamily) async throws {
        let draws = PinnedRandomBits([0xFFFF_0123_4567_89AB, 0x0000_2A2B_2C2D_2E2F])
        let advertiser = HCIAdvertiser(adapter: "hci0", commandFamily: family, logger: TestSupport.logger) {
            draws.next()
        }
        let scanner = try #require(Self.scanners[family])
        let stream = try await scanner.scan()
        var received: [BLEAdvertisement] = []
        for seed: UInt8 in [21, 22] {
            try await advertiser.startAdvertising(BLEServiceDataAdvert(serviceData: TestSupport.eid(seed)))
            let advert = try await TestSupport.firstAdvert(from: stream, within: .seconds(10)) {
                $0.serviceData == TestSupport.eid(seed)
            }
            received.append(try #require(advert, "hci1 did not receive advert \(seed) (\(family))"))
        }
        await advertiser.stopAdvertising()
        #expect(received.map(\.address.description) == ["01:23:45:67:89:AB", "2A:2B:2C:2D:2E:2F"])
        #expect(received.map(\.addressType) == [.random, .random])
    }

    @Test func stoppedAdvertisingIsGone() async throws {
        let advertiser = HCIAdvertiser(adapter: "hci0", logger: TestSupport.logger)
        let scanner = Self.scanner
        try await advertiser.startAdvertising(BLEServiceDataAdvert(serviceData: TestSupport.eid(3)))
        // Control: a scan that starts now is told about the running advertiser.
        let control = try await TestSupport.firstAdvert(from: try await scanner.scan(), within: .seconds(10)) {
            $0.serviceData == TestSupport.eid(3)
        }
        #expect(control != nil)
        await advertiser.stopAdvertising()
        let heard = try await Self.advertsBeforeMarker()
        #expect(
            !heard.contains { $0.serviceData == TestSupport.eid(3) }, "advertising still on after stopAdvertising()")
    }

    /// What a fresh scan on hci1 reports before a marker advert that hci0 starts once the scan runs.
    ///
    /// btvirt answers a scan enable with one report per advertiser on at that moment, in the same
    /// step, and an advertising enable with one report to each scanner; it handles one command at a
    /// time, in order. So an advert still on when the scan starts is reported before the marker,
    /// and "not heard before the marker" means "not on the air": no time window decides it.
    static func advertsBeforeMarker() async throws -> [BLEAdvertisement] {
        let marker = TestSupport.eid(99)
        let stream = try await scanner.scan()
        let advertiser = HCIAdvertiser(adapter: "hci0", logger: TestSupport.logger)
        try await advertiser.startAdvertising(BLEServiceDataAdvert(serviceData: marker))
        let heard = try await TestSupport.adverts(from: stream, untilSeen: 1) { $0.serviceData == marker }
        await advertiser.stopAdvertising()
        return heard
    }

    @Test func advertisingIsSwitchedOffWhenTheProcessDiesOfSIGTERM() async throws {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["--testing-library", "swift-testing", "--filter", "childAdvertisesUntilKilled"]
        var environment = ProcessInfo.processInfo.environment
        environment["HYBRID_BLE_CHILD"] = "1"
        environment["HYBRID_BLE_PROOF"] = "hci-child"
        child.environment = environment
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        defer { if child.isRunning { kill(child.processIdentifier, SIGKILL) } }
        // Control: the child's advert is on the air (a scan running before the child starts is told
        // when its advertising is switched on). The scan ends with this block.
        do {
            let stream = try await Self.scanner.scan()
            try child.run()
            let control = try await TestSupport.firstAdvert(from: stream, within: .seconds(30)) {
                $0.serviceData == TestSupport.eid(9)
            }
            try #require(control != nil, "the child's advert was not on the air")
        }
        let clock = ContinuousClock()
        let killed = clock.now
        kill(child.processIdentifier, SIGTERM)
        child.waitUntilExit()
        KernelBluetoothEnvironment.recordTiming("hci exit guard (SIGTERM to exit)", clock.now - killed)
        #expect(child.terminationReason == .uncaughtSignal)
        #expect(child.terminationStatus == SIGTERM)
        // The dying child's "advertising off" may still be queued for hci0 when it has exited (its
        // exit guard waits at most 500 ms for the answer). The kernel sends an adapter's commands in
        // order, so once a command of ours on hci0 has been answered, the child's has been handled.
        let flush = HCIAdvertiser(adapter: "hci0", logger: TestSupport.logger)
        try await flush.startAdvertising(BLEServiceDataAdvert(serviceData: TestSupport.eid(98)))
        await flush.stopAdvertising()
        let heard = try await Self.advertsBeforeMarker()
        #expect(
            !heard.contains { $0.serviceData == TestSupport.eid(9) },
            "advertising survived the process; heard before the marker: \(heard.map(\.serviceData))")
    }

    @Test func unknownAdapterIsReported() async throws {
        await #expect(throws: BluetoothError.noAdapter("hci9")) {
            try await HCIAdvertiser(adapter: "hci9", logger: TestSupport.logger)
                .startAdvertising(BLEServiceDataAdvert(serviceData: [1]))
        }
        await #expect(throws: BluetoothError.noAdapter("hci9")) {
            _ = try await HCIScanner(adapter: "hci9", logger: TestSupport.logger).scan()
        }
    }

    @Test func downAdapterIsReportedAndSkippedByDefault() async throws {
        try Self.hciconfig("hci1", "down")
        defer { try? Self.hciconfig("hci1", "up") }
        await #expect(throws: BluetoothError.adapterDown("hci1")) {
            _ = try await HCIScanner(adapter: "hci1", logger: TestSupport.logger).scan()
        }
        // With no adapter named, the first one that is up (hci0) is used.
        let advertiser = HCIAdvertiser(adapter: nil, logger: TestSupport.logger)
        try await advertiser.startAdvertising(BLEServiceDataAdvert(serviceData: [1]))
        await advertiser.stopAdvertising()
    }

    /// Runs the guest's `hciconfig` (BlueZ) to change an adapter's state behind our back.
    static func hciconfig(_ adapter: String, _ command: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "hciconfig \(adapter) \(command)"]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "hciconfig \(adapter) \(command) failed")
    }

    @Test func defaultBackendIsHCIWithoutBluetoothd() async {
        #expect(await BLEBackend.automatic(adapter: "hci0") == .hci(adapter: "hci0"))
    }
}

/// 64-bit draws handed out in order to an ``HCIAdvertiser`` (a valid fixed value once they run out).
final class PinnedRandomBits: Sendable {
    private let remaining: Mutex<[UInt64]>

    init(_ values: [UInt64]) {
        remaining = Mutex(values)
    }

    func next() -> UInt64 {
        remaining.withLock { $0.isEmpty ? 0x0000_0BAD_0BAD_0BAD : $0.removeFirst() }
    }
}

/// The child half of `advertisingIsSwitchedOffWhenTheProcessDiesOfSIGTERM`: runs only in the child
/// process that test starts (its own suite, so the parent suite's condition does not apply).
@Suite(.enabled(if: ProcessInfo.processInfo.environment["HYBRID_BLE_CHILD"] != nil))
struct KernelHCIChildProcess {
    @Test func childAdvertisesUntilKilled() async throws {
        let advertiser = HCIAdvertiser(adapter: "hci0", logger: TestSupport.logger)
        try await advertiser.startAdvertising(BLEServiceDataAdvert(serviceData: TestSupport.eid(9)))
        // Advertises until the parent kills this process: no time limit for a slow parent to outrun.
        let (parked, keepOpen) = AsyncStream<Never>.makeStream()
        for await _ in parked {}
        keepOpen.finish()
    }
}
