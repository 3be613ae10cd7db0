import Foundation
import Testing

@testable import HybridBluetooth

#if canImport(Glibc)
    import Glibc
#endif

@Suite(.timeLimit(.minutes(5)))
struct SimulatedAirTests {
    @Test func scannerReceivesTheExactBytes() async throws {
        let air = TestSupport.temporaryAir()
        defer { TestSupport.remove(air) }
        let scanner = SimulatedAirScanner(air: air, logger: TestSupport.logger)
        let advertiser = SimulatedAirAdvertiser(air: air, logger: TestSupport.logger)
        let stream = try await scanner.scan()
        try await advertiser.startAdvertising(BLEServiceDataAdvert(serviceData: Fixture.androidEID))
        let advert = try await TestSupport.firstAdvert(from: stream, within: .seconds(5))
        await advertiser.stopAdvertising()
        #expect(advert?.uuid16 == 0xFFF9)
        #expect(advert?.serviceData == Fixture.androidEID)
    }

    @Test func twoScannersBothReceive() async throws {
        let air = TestSupport.temporaryAir()
        defer { TestSupport.remove(air) }
        let first = try await SimulatedAirScanner(air: air, logger: TestSupport.logger).scan()
        let second = try await SimulatedAirScanner(air: air, logger: TestSupport.logger).scan()
        let advertiser = SimulatedAirAdvertiser(air: air, logger: TestSupport.logger)
        let payload = TestSupport.eid(7)
        try await advertiser.withAdvertising(BLEServiceDataAdvert(uuid16: 0xFDE2, serviceData: payload)) {
            let a = try await TestSupport.firstAdvert(from: first, within: .seconds(5))
            let b = try await TestSupport.firstAdvert(from: second, within: .seconds(5))
            #expect(a?.serviceData == payload)
            #expect(b?.serviceData == payload)
            #expect(a?.uuid16 == 0xFDE2)
            #expect(a?.address == b?.address)
        }
    }

    @Test func stopStops() async throws {
        let air = TestSupport.temporaryAir()
        defer { TestSupport.remove(air) }
        let advertiser = SimulatedAirAdvertiser(air: air, logger: TestSupport.logger)
        let advert = BLEServiceDataAdvert(serviceData: TestSupport.eid(1), interval: .milliseconds(20))
        let before = try await SimulatedAirScanner(air: air, logger: TestSupport.logger).scan()
        try await advertiser.startAdvertising(advert)
        #expect(try await TestSupport.firstAdvert(from: before, within: .seconds(5)) != nil)
        await advertiser.stopAdvertising()
        // A scanner that registers after the stop hears a control advertiser 25 times (25 of its
        // 20 ms intervals), and the stopped advert never.
        let after = try await SimulatedAirScanner(air: air, logger: TestSupport.logger).scan()
        let control = SimulatedAirAdvertiser(air: air, logger: TestSupport.logger)
        try await control.startAdvertising(
            BLEServiceDataAdvert(serviceData: TestSupport.eid(9), interval: .milliseconds(20)))
        let heard = try await TestSupport.adverts(from: after, untilSeen: 25) { $0.serviceData == TestSupport.eid(9) }
        await control.stopAdvertising()
        #expect(!heard.contains { $0.serviceData == TestSupport.eid(1) })
    }

    @Test func restartingReplacesTheAdvert() async throws {
        let air = TestSupport.temporaryAir()
        defer { TestSupport.remove(air) }
        let advertiser = SimulatedAirAdvertiser(air: air, logger: TestSupport.logger)
        try await advertiser.startAdvertising(BLEServiceDataAdvert(serviceData: TestSupport.eid(1)))
        try await advertiser.startAdvertising(BLEServiceDataAdvert(serviceData: TestSupport.eid(2)))
        let stream = try await SimulatedAirScanner(air: air, logger: TestSupport.logger).scan()
        // The new advert is heard many times over, and the old one never.
        let heard = try await TestSupport.adverts(from: stream, untilSeen: 10) { $0.serviceData == TestSupport.eid(2) }
        await advertiser.stopAdvertising()
        #expect(!heard.contains { $0.serviceData == TestSupport.eid(1) })
    }

    @Test func otherUUIDsAreFilteredOut() async throws {
        let air = TestSupport.temporaryAir()
        defer { TestSupport.remove(air) }
        let stream = try await SimulatedAirScanner(air: air, logger: TestSupport.logger).scan(for: [0xFDE2])
        let other = SimulatedAirAdvertiser(air: air, logger: TestSupport.logger)
        let wanted = SimulatedAirAdvertiser(air: air, logger: TestSupport.logger)
        try await other.startAdvertising(BLEServiceDataAdvert(uuid16: 0x180F, serviceData: [1]))
        try await wanted.startAdvertising(BLEServiceDataAdvert(uuid16: 0xFDE2, serviceData: [2]))
        let received = try await TestSupport.firstAdvert(from: stream, within: .seconds(5))
        await other.stopAdvertising()
        await wanted.stopAdvertising()
        #expect(received?.uuid16 == 0xFDE2)
        #expect(received?.serviceData == [2])
    }

    @Test func staleRegistrationsAreDeleted() async throws {
        let air = TestSupport.temporaryAir()
        defer { TestSupport.remove(air) }
        try FileManager.default.createDirectory(
            atPath: air.directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // PIDs never exceed 2^22 on Linux, so this process cannot exist.
        let stale = air.directory + "/" + SimulatedAirRegistry.fileName(pid: 0x7FFF_FFF0, id: 9)
        #expect(FileManager.default.createFile(atPath: stale, contents: nil))
        let advertiser = SimulatedAirAdvertiser(air: air, logger: TestSupport.logger)
        try await advertiser.startAdvertising(BLEServiceDataAdvert(serviceData: [1]))
        await advertiser.stopAdvertising()
        #expect(!FileManager.default.fileExists(atPath: stale))
    }

    @Test func scannerUnregistersWhenTheStreamEnds() async throws {
        let air = TestSupport.temporaryAir()
        defer { TestSupport.remove(air) }
        let scanner = SimulatedAirScanner(air: air, logger: TestSupport.logger)
        var stream: AsyncThrowingStream<BLEAdvertisement, any Error>? = try await scanner.scan()
        #expect(SimulatedAirRegistry(directory: air.directory).scannerPaths().count == 1)
        stream = nil
        _ = stream
        // A new scan on the same scanner starts only once the ended one has finished (and so has
        // removed its file): then exactly one scanner, the new one, is registered.
        let next = try await scanner.scan()
        #expect(SimulatedAirRegistry(directory: air.directory).scannerPaths().count == 1)
        _ = next
    }

    @Test func invalidAdvertsAreRejectedBeforeAnythingIsSent() async throws {
        let advertiser = SimulatedAirAdvertiser(air: TestSupport.temporaryAir(), logger: TestSupport.logger)
        await #expect(throws: BluetoothError.invalidInterval(.milliseconds(5))) {
            try await advertiser.startAdvertising(BLEServiceDataAdvert(serviceData: [], interval: .milliseconds(5)))
        }
    }

    @Test func datagramRoundTripAndRejects() throws {
        let address = try #require(BLEAddress(string: "01:02:03:04:05:06"))
        let datagram = SimulatedAirDatagram.encode(address: address, uuid16: 0xFFF9, serviceData: [9, 8])
        #expect(datagram == Array("HSA1".utf8) + [1, 2, 3, 4, 5, 6, 0xF9, 0xFF, 9, 8])
        #expect(
            try SimulatedAirDatagram.decode(datagram)
                == BLEAdvertisement(address: address, uuid16: 0xFFF9, serviceData: [9, 8], rssi: nil)
        )
        #expect(throws: BluetoothError.malformedReport(.truncated)) {
            try SimulatedAirDatagram.decode(Array(datagram.prefix(11)))
        }
        #expect(throws: BluetoothError.malformedReport(.notAnAdvertisingReport)) {
            try SimulatedAirDatagram.decode(Array("XSA1".utf8) + Array(datagram.dropFirst(4)))
        }
    }

    @Test func defaultDirectoryRule() {
        #expect(
            SimulatedAir.defaultDirectory(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"])
                == "/run/user/1000/hybrid-simulated-air"
        )
        #expect(SimulatedAir.defaultDirectory(environment: [:]) == "/tmp/hybrid-simulated-air-\(getuid())")
        #expect(
            SimulatedAir.defaultDirectory(environment: ["XDG_RUNTIME_DIR": "/r", "HYBRID_SIMULATED_AIR_DIR": "/x"])
                == "/x"
        )
    }
}
