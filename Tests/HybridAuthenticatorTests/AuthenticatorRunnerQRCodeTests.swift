import Foundation
import HybridAuthenticator
import HybridBluetooth
import HybridCore
import Testing

/// The checks a run makes on the QR code and the domain ID before any I/O.
@Suite(.timeLimit(.minutes(5)))
struct AuthenticatorRunnerQRCodeTests {
    static let timestamp: Int64 = 1_767_225_600

    func options(now: Int64 = timestamp, domainID: UInt16 = 0, maxAge: Duration? = .seconds(600))
        -> AuthenticatorRunner.Options
    {
        var options = AuthenticatorRunner.Options(ble: .simulated(SimulatedAir(directory: "/nonexistent")))
        options.domainID = domainID
        options.maxQRCodeAge = maxAge
        options.now = { Date(timeIntervalSince1970: TimeInterval(now)) }
        return options
    }

    @Test func acceptsAFreshCodeWithSurroundingWhitespace() throws {
        let client = TestClient()
        let checked = try AuthenticatorRunner.check(
            qrCode: "  " + client.qrCode(timestamp: Self.timestamp) + "\n", options: options(now: Self.timestamp + 600))
        #expect(checked.payload.secret.bytes == client.secret.bytes)
        #expect(checked.domainID == .google)
    }

    @Test(arguments: [
        ("FIDO:/", AuthenticatorRunnerError.invalidQRCode(.cbor(.truncated))),
        ("HTTP:/0123", .invalidQRCode(.invalidPrefix)),
        ("FIDO:/12", .invalidQRCode(.digits(.invalidLength(2)))),
    ])
    func rejectsMalformedCodes(text: String, expected: AuthenticatorRunnerError) {
        #expect(throws: expected) { try AuthenticatorRunner.check(qrCode: text, options: options()) }
    }

    @Test func rejectsNonDigits() {
        #expect {
            try AuthenticatorRunner.check(qrCode: "FIDO:/12a45", options: options())
        } throws: { error in
            guard case .invalidQRCode(.digits) = error as? AuthenticatorRunnerError else { return false }
            return true
        }
    }

    @Test(arguments: [601, -601, 100_000])
    func rejectsStaleCodes(offset: Int64) {
        let qr = TestClient().qrCode(timestamp: Self.timestamp)
        #expect(throws: AuthenticatorRunnerError.staleQRCode(secondsOff: offset, limit: .seconds(600))) {
            try AuthenticatorRunner.check(qrCode: qr, options: options(now: Self.timestamp + offset))
        }
    }

    @Test func stalenessIsConfigurable() throws {
        let qr = TestClient().qrCode(timestamp: Self.timestamp)
        _ = try AuthenticatorRunner.check(qrCode: qr, options: options(now: Self.timestamp - 600))
        _ = try AuthenticatorRunner.check(qrCode: qr, options: options(now: Self.timestamp + 10_000, maxAge: nil))
        #expect(throws: AuthenticatorRunnerError.staleQRCode(secondsOff: 11, limit: .seconds(10))) {
            try AuthenticatorRunner.check(qrCode: qr, options: options(now: Self.timestamp + 11, maxAge: .seconds(10)))
        }
    }

    /// A code without key 3 could be any age: refused as too old, unless the option says otherwise
    /// or the age check is off. The QR text is Chromium's "basic" vector ({0: P, 1: S}, protocol.md
    /// §9.A), which has no timestamp.
    @Test func refusesACodeWithoutTimestampUnlessTold() throws {
        let qr =
            "FIDO:/21451485302227106379487559113723092434570048571579929725294386093726313840430492013630000000134226708900000000000000000000000000000000"
        #expect(throws: AuthenticatorRunnerError.undatedQRCode) {
            try AuthenticatorRunner.check(qrCode: qr, options: options(now: Self.timestamp))
        }
        var lenient = options(now: Self.timestamp)
        lenient.acceptsQRCodeWithoutTimestamp = true
        _ = try AuthenticatorRunner.check(qrCode: qr, options: lenient)
        _ = try AuthenticatorRunner.check(qrCode: qr, options: options(now: Self.timestamp, maxAge: nil))
    }

    /// protocol.md §4.1 and §10.8: 2–255 are invalid; an assigned ID must be below QR key 2;
    /// hashed IDs (≥ 256) are always usable.
    @Test(arguments: [
        (Int64?.some(2), UInt16(1), AuthenticatorRunnerError?.none),
        (2, 0, nil),
        (1, 1, .domainNotKnownToClient(domainID: 1, knownDomains: 1)),
        (nil, 0, nil),
        (nil, 1, .domainNotKnownToClient(domainID: 1, knownDomains: 1)),
        (0, 0, .domainNotKnownToClient(domainID: 0, knownDomains: 0)),
        (0, 256, nil),
        (1, 63872, nil),
        (2, 2, .invalidDomainID(2)),
        (2, 255, .invalidDomainID(255)),
    ])
    func domainRules(knownDomains: Int64?, domainID: UInt16, expected: AuthenticatorRunnerError?) {
        let qr = TestClient().qrCode(timestamp: Self.timestamp, knownDomains: knownDomains)
        let result = Result { try AuthenticatorRunner.check(qrCode: qr, options: options(domainID: domainID)) }
        switch (result, expected) {
        case (.success(let checked), nil):
            #expect(checked.domainID.rawValue == domainID)
        case (.failure(let error), let expected?):
            #expect(error as? AuthenticatorRunnerError == expected)
        case (.success, let expected?):
            Issue.record("accepted, expected \(expected)")
        case (.failure(let error), nil):
            Issue.record("refused: \(error)")
        }
    }

    @Test func refusalDescriptionsSayWhatToDo() {
        #expect(
            AuthenticatorRunnerError.domainNotKnownToClient(domainID: 1, knownDomains: 1).description.contains(
                "--domain-id"))
        #expect(
            AuthenticatorRunnerError.staleQRCode(secondsOff: 700, limit: .seconds(600)).description.contains(
                "700 s old"))
    }

    @Test func aRefusedCodeReportsOneErrorEventAndNeverAdvertises() async throws {
        let harness = try RunnerHarness()
        defer { harness.cleanUp() }
        var options = options(now: Self.timestamp + 3600)
        options.ble = .simulated(harness.air)
        let events = EventLog()
        let runner = harness.runner(relay: nil, options: options)
        await #expect(throws: AuthenticatorRunnerError.staleQRCode(secondsOff: 3600, limit: .seconds(600))) {
            try await runner.run(qrCode: TestClient().qrCode(timestamp: Self.timestamp), onEvent: events.callback)
        }
        #expect(events.names == ["error"])
        #expect(harness.advertiser.calls.isEmpty)
    }
}
