import Foundation
import Testing

@testable import HybridBluetooth

/// The simulated air is for tests and demos. Command lines accept it only with
/// `HYBRID_ALLOW_SIMULATED_AIR=1`, and its directory must be this user's, 0700, not a link.
@Suite struct SimulatedAirSafetyTests {
    @Test func theCommandLineNeedsTheEnvironmentSwitch() throws {
        #expect(throws: BLEBackendArgumentError.simulatedAirNotAllowed) {
            try BLEBackend(argument: "sim", adapter: nil, environment: [:])
        }
        #expect(throws: BLEBackendArgumentError.simulatedAirNotAllowed) {
            try BLEBackend(argument: "sim", adapter: nil, environment: [SimulatedAir.allowVariable: "yes"])
        }
        let allowed = try BLEBackend(
            argument: "sim", adapter: nil,
            environment: [SimulatedAir.allowVariable: "1", "HYBRID_SIMULATED_AIR_DIR": "/x"])
        #expect(allowed == .simulated(SimulatedAir(directory: "/x")))
        #expect(try BLEBackend(argument: "hci", adapter: "hci1", environment: [:]) == .hci(adapter: "hci1"))
        #expect(throws: BLEBackendArgumentError.unknown("usb")) {
            try BLEBackend(argument: "usb", adapter: nil, environment: [:])
        }
    }

    static func refusal(_ directory: String) -> String? {
        do {
            let registry = SimulatedAirRegistry(directory: directory)
            registry.unregister(try registry.register())
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func aMissingDirectoryIsCreated0700() throws {
        let air = TestSupport.temporaryAir()
        defer { TestSupport.remove(air) }
        let previous = umask(0o022)
        defer { umask(previous) }
        #expect(Self.refusal(air.directory) == nil)
        var info = stat()
        #expect(lstat(air.directory, &info) == 0 && info.st_mode & 0o777 == 0o700)
    }

    @Test func aDirectoryOthersCanEnterOrALinkIsRefused() throws {
        let air = TestSupport.temporaryAir()
        defer { TestSupport.remove(air) }
        #expect(mkdir(air.directory, 0o755) == 0 && chmod(air.directory, 0o755) == 0)
        #expect(Self.refusal(air.directory)?.contains("has mode 755") == true)
        let link = air.directory + "-link"
        defer { unlink(link) }
        #expect(chmod(air.directory, 0o700) == 0 && symlink(air.directory, link) == 0)
        #expect(Self.refusal(link)?.contains("symbolic link") == true)
        #expect(Self.refusal(air.directory) == nil)
    }

    @Test(.enabled(if: geteuid() == 0, "chown to another uid needs root (CI runs as root)"))
    func aDirectoryOfAnotherUserIsRefused() async throws {
        let air = TestSupport.temporaryAir()
        defer { TestSupport.remove(air) }
        #expect(mkdir(air.directory, 0o700) == 0 && chown(air.directory, 65534, 65534) == 0)
        #expect(Self.refusal(air.directory)?.contains("belongs to uid 65534") == true)
        // The advertiser refuses it too, before sending anything.
        let advertiser = SimulatedAirAdvertiser(air: air, logger: TestSupport.logger)
        await #expect(throws: BluetoothError.self) {
            try await advertiser.startAdvertising(BLEServiceDataAdvert(serviceData: [UInt8](repeating: 1, count: 20)))
        }
        await advertiser.stopAdvertising()
    }
}
