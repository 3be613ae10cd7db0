import Foundation
import HybridAuthenticator
import HybridBluetooth
import HybridCTAP
import HybridCore
import TestLoopbackRelay
import TestSupport
import Testing

@testable import HybridClient
@testable import HybridPresentation
@testable import hybrid_client

/// The client role's output as the authenticator role reads it: the QR image `hybrid-client
/// --qr-file` writes decodes with `hybrid-authenticator --qr-image`'s reader, and the client's
/// `uv` mapping follows the authenticator's getInfo (CTAP 2.1 §6.4 option `uv`).
@Suite struct AuthenticatorRoleInteropTests {
    @Test func theQRFileDecodesWithTheAuthenticatorsImageReader() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-qr-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let urls = try SharedVectors.qrURLs()
        try #require(!urls.isEmpty)
        for (index, url) in urls.enumerated() {
            let path = directory.appendingPathComponent("qr-\(index).png").path
            // What `hybrid-client create --qr-file PATH` does when the QR code is shown.
            ProgressReporter(
                json: true, qr: QRDisplay(image: QRImageFile(path: path), printQRURL: false), timeout: .seconds(1)
            )
            .report(.qr(url: url))
            #expect(try QRImageReader().read(contentsOfFile: path) == url)
        }
    }

    @Test func aSmallDenseRenderingAlsoDecodes() throws {
        let url = try #require(try SharedVectors.qrURLs().last)
        let png = QRImageWriter(quietZone: 4, pixelsPerModule: 2).png(
            try QRCodeMatrix(encoding: url, errorCorrection: .high))
        #expect(try QRImageReader().read(imageBytes: png, path: "dense.png") == url)
    }

    /// An authenticator that cannot verify users (a plaintext store with `--yes`) says `uv: false`:
    /// "preferred" then sends no `uv` and succeeds without the UV flag; "required" sends `uv` and the
    /// authenticator refuses it with CTAP2_ERR_INVALID_OPTION. A resident key "preferred" is not
    /// made there, as Chromium makes one only where it can get UV.
    @Test(arguments: [UserVerificationRequirement.preferred, .required])
    func userVerificationAgainstAnAuthenticatorWithoutIt(requirement: UserVerificationRequirement) async throws {
        let air = try LoopbackCeremony.freshAir()
        let store = InMemoryPasskeyStore()
        let options = try PublicKeyCredentialCreationOptionsJSON.quick(
            rpID: LoopbackCeremonyTests.rpID, userName: "alice", userID: LoopbackCeremonyTests.userID,
            challenge: TestSupport.randomBytes(32), residentKey: .preferred, userVerification: requirement)
        let request = HybridClientRequest.registration(
            try RegistrationCeremony(options: options, origin: try WebOrigin(LoopbackCeremonyTests.origin)))
        let outcome = try await LoopbackRelay.with { relay in
            try await LoopbackCeremony.run(
                request, options: LoopbackCeremonyTests.options(relay: relay, air: air),
                phone: LoopbackCeremony.runnerPhone(
                    store: store, userInteraction: AutoApproveUserInteraction(userVerification: false), relay: relay,
                    air: air))
        }
        switch requirement {
        case .required:
            #expect(outcome.clientError?.ctapStatus == CTAPStatusCode(rawValue: 0x2C))
            #expect(await store.list().isEmpty)
        default:
            guard case .registration(let response) = try outcome.response() else {
                Issue.record("not a registration")
                return
            }
            let authData = try #require(Base64URL.decode(response.response.authenticatorData))
            try #require(authData.count > 32)
            #expect(authData[32] & 0x01 == 0x01, "UP")
            #expect(authData[32] & 0x04 == 0, "UV must be clear")
            #expect(await store.list().map(\.isDiscoverable) == [false])
        }
    }
}
