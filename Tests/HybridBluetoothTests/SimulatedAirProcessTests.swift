import Foundation
import TestChildProcess
import Testing

@testable import HybridBluetooth

#if canImport(Glibc)
    import Glibc
#endif

/// The simulated air between two processes: this test bundle starts itself again as the advertiser.
@Suite(.timeLimit(.minutes(5)))
struct SimulatedAirProcessTests {
    @Test func advertFromAnotherProcessArrivesExactly() async throws {
        let air = TestSupport.temporaryAir()
        defer { TestSupport.remove(air) }
        let stream = try await SimulatedAirScanner(air: air, logger: TestSupport.logger).scan()
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["--testing-library", "swift-testing", "--filter", "childAdvertisesOnTheSimulatedAir"]
        var environment = ProcessInfo.processInfo.environment
        environment["HYBRID_SIM_CHILD_AIR"] = air.directory
        child.environment = environment
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        defer { if child.isRunning { kill(child.processIdentifier, SIGKILL) } }
        let advert = try await TestSupport.firstAdvert(from: stream, within: .seconds(30))
        kill(child.processIdentifier, SIGTERM)
        _ = await ChildProcess.exitStatus(of: child)
        #expect(advert?.serviceData == Fixture.androidEID)
        #expect(advert?.uuid16 == BLEServiceUUID.fido)
    }
}

/// The child half of the test above: runs only in the process that test starts.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["HYBRID_SIM_CHILD_AIR"] != nil))
struct SimulatedAirChildProcess {
    @Test func childAdvertisesOnTheSimulatedAir() async throws {
        let directory = try #require(ProcessInfo.processInfo.environment["HYBRID_SIM_CHILD_AIR"])
        let advertiser = SimulatedAirAdvertiser(air: SimulatedAir(directory: directory), logger: TestSupport.logger)
        try await advertiser.withAdvertising(BLEServiceDataAdvert(serviceData: Fixture.androidEID)) {
            // Advertises until the parent kills this process: no time limit for a slow parent to outrun.
            let (parked, keepOpen) = AsyncStream<Never>.makeStream()
            for await _ in parked {}
            keepOpen.finish()
        }
    }
}
