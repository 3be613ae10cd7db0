import Crypto
import Foundation
import HybridConformance
import HybridCore
import Testing

/// `phone.qr.*` on QR codes from protocol.md §9 (Chromium's KnownQRs, webauthn-rs's real Chrome
/// and Safari codes) and on scripted QR codes with bytes changed.
@Suite struct PhoneQRCodeTests {
    static let now: Int64 = 1_790_000_000

    static func judge(_ text: String, now: Int64 = now) -> ConformanceReport {
        var report = ConformanceReport(mode: "phone", subject: "qr")
        QRCodeConformance.judge(text, now: now, into: &report)
        return report
    }

    static func outcome(_ report: ConformanceReport, _ check: ConformanceCheck) -> CheckOutcome? {
        report.result(for: check.id)?.outcome
    }

    /// A QR text for a map written entry by entry, in the given order, with canonical items.
    static func url(entries: [(CBORValue, CBORValue)]) -> String {
        var bytes: [UInt8] = [0xA0 + UInt8(entries.count)]
        for (key, value) in entries { bytes += CBOREncoder.encode(key) + CBOREncoder.encode(value) }
        return QRCodePayload.urlPrefix + DigitEncoding.encode(bytes)
    }

    static func conformingEntries() -> [(CBORValue, CBORValue)] {
        let key = P256.KeyAgreement.PrivateKey().publicKey
        return [
            (0, .bytes(Array(key.compressedRepresentation))), (1, .bytes([UInt8](repeating: 9, count: 16))), (2, 2),
            (3, .int(now)), (4, false), (5, "mc"),
        ]
    }

    @Test func safarisCodeMeetsEveryRequiredRule() {
        // protocol.md §9.B3: {0, 1, 2: 2, 3: 2022-12-12, 4: false, 5: "mc"}.
        let report = Self.judge(
            "FIDO:/089962132878132862898875319509818655951233947060166026934941652203853844930597225184066237811614893181300344014421205790072080843938838513707157859599106109321447142404"
        )
        #expect(report.succeeded)
        #expect(Self.outcome(report, PhoneChecks.qrKey4Present) == .pass)
        #expect(Self.outcome(report, PhoneChecks.qrKey4NoLinking) == .pass)
        #expect(Self.outcome(report, PhoneChecks.qrTimestamp) == .warn)  // 2022, judged in 2026
    }

    @Test func oldChromeAsksForLinking() {
        // protocol.md §9.B2: Chrome before M136 writes 4: true.
        let report = Self.judge(
            "FIDO:/162870791865632382552704231438327900152302540348097243854039966655366469794954476199158014113179232779520163209900691930075274801398564434658077048963842109321447142660"
        )
        #expect(report.succeeded)
        #expect(Self.outcome(report, PhoneChecks.qrKey4NoLinking) == .warn)
    }

    @Test func withoutKey4PhonesFallBackToRevisionZero() {
        // protocol.md §9.A4 "basic": {0: P, 1: S}.
        let report = Self.judge(
            "FIDO:/21451485302227106379487559113723092434570048571579929725294386093726313840430492013630000000134226708900000000000000000000000000000000"
        )
        #expect(Self.outcome(report, PhoneChecks.qrRequiredKeys) == .pass)
        #expect(Self.outcome(report, PhoneChecks.qrKey4Present) == .fail)
        #expect(Self.outcome(report, PhoneChecks.qrKey2Domains) == .warn)
    }

    @Test func key4MustBeABool() {
        // protocol.md §9.A4 4: "foo".
        let report = Self.judge(
            "FIDO:/21451485302227107379487559113723092434570048571579929725294386093726313840430492013630000000134226708900000000000000000011258999068426241869571683"
        )
        #expect(Self.outcome(report, PhoneChecks.qrKeyTypes) == .fail)
    }

    @Test func key0MustBeAPointOnTheCurve() {
        // protocol.md §9.A4 "bad point".
        let report = Self.judge(
            "FIDO:/21451485302227106379487559113723092434570048571579929725294386093726313840430492013630000000134226683300000000000000000000000000000000"
        )
        #expect(Self.outcome(report, PhoneChecks.qrRequiredKeys) == .fail)
    }

    @Test func scriptedConformingCodePassesEveryCheck() {
        let report = Self.judge(Self.url(entries: Self.conformingEntries()))
        for check in PhoneChecks.judged where check.id.hasPrefix("phone.qr.") {
            #expect(
                Self.outcome(report, check) == .pass, "\(check.id): \(report.result(for: check.id)?.observed ?? "-")")
        }
    }

    @Test func unsortedKeysAreNotCanonical() {
        var entries = Self.conformingEntries()
        entries.swapAt(0, 1)
        let report = Self.judge(Self.url(entries: entries))
        #expect(Self.outcome(report, PhoneChecks.qrCanonicalCBOR) == .fail)
        #expect(!report.succeeded)
    }

    @Test func key6AsABoolIsNotTheCTAP23Form() {
        let report = Self.judge(Self.url(entries: Self.conformingEntries() + [(6, true)]))
        #expect(Self.outcome(report, PhoneChecks.qrKey6Type) == .fail)
    }

    @Test func key6WithoutL2CAPIsAWarning() {
        let report = Self.judge(Self.url(entries: Self.conformingEntries() + [(6, [0])]))
        #expect(Self.outcome(report, PhoneChecks.qrKey6Type) == .pass)
        #expect(Self.outcome(report, PhoneChecks.qrKey6OnlyWithL2CAP) == .warn)
        #expect(report.succeeded)
    }

    @Test func textIsNotAQRCode() {
        let report = Self.judge("https://example.com")
        #expect(Self.outcome(report, PhoneChecks.qrFormat) == .fail)
        #expect(Self.outcome(report, PhoneChecks.qrKey4Present) == .skip)
    }
}
