import Testing

@testable import hybrid_conformance

/// `hybrid-conformance phone` argument checks: bad profiles, faults and backends are refused
/// before anything runs.
@Suite struct PhoneCommandTests {
    static let qr = "FIDO:/0123"

    @Test func acceptsEveryProfileAndFault() throws {
        let command = try PhoneCommand.parse([
            Self.qr, "--profile", "late-update", "--fault", "wrong-routing-id", "--ble", "hci", "--json",
        ])
        #expect(command.profile == "late-update")
        #expect(command.fault == "wrong-routing-id")
        #expect(command.report.json)
    }

    /// The late-update phone's wait: 2 s unless told (Chromium's test phone waits 10 s).
    @Test func lateUpdateDelayDefaultsToTwoSeconds() throws {
        #expect(try PhoneCommand.parse([Self.qr]).lateUpdateDelay == 2)
        let chromiumLike = try PhoneCommand.parse([Self.qr, "--profile", "late-update", "--late-update-delay", "10"])
        #expect(chromiumLike.lateUpdateDelay == 10)
    }

    @Test(arguments: [
        ["--profile", "pixel"], ["--fault", "explode"], ["--ble", "usb"], ["--tunnel-url", "http://x"],
        ["--client-timeout", "0"], ["--qr-image", "x.png"], ["--late-update-delay=-1"],
        ["--late-update-delay", "300"], ["--domain-id", "2"], ["--ca-file", "/nonexistent/ca.pem"],
    ])
    func refusesBadArguments(_ arguments: [String]) {
        #expect(throws: (any Error).self) { try PhoneCommand.parse([Self.qr] + arguments) }
    }
}
