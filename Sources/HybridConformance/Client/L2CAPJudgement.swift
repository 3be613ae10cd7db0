import HybridCore

/// Judges the authenticator's adverts by the CTAP 2.3 L2CAP rule (``L2CAPRules``): a suffix only
/// when the QR code offered BLE L2CAP (protocol.md §3.4).
package enum L2CAPJudgement {
    /// Records ``ClientChecks/advertSuffix`` for the adverts of `ceremonies`.
    package static func judgeAdverts(_ ceremonies: [CeremonyTranscript], into report: inout ConformanceReport) {
        let adverts = ceremonies.compactMap(\.advert)
        guard !adverts.isEmpty else {
            report.skip(ClientChecks.advertSuffix, because: "no advert for our QR code was received")
            return
        }
        for advert in adverts {
            do throws(L2CAPRuleViolation) {
                try L2CAPRules.checkPhoneAdvert(serviceData: advert.serviceData, qrChannels: advert.offered)
            } catch {
                report.fail(ClientChecks.advertSuffix, observed: error.description)
                return
            }
        }
        let offered = adverts.contains { $0.offered?.contains(.bleL2CAP) == true }
        report.pass(
            ClientChecks.advertSuffix,
            observed:
                "\(adverts.count) advert(s) of \(adverts.map { "\($0.serviceData.count)" }.joined(separator: ", ")) "
                + "bytes; the QR code " + (offered ? "offered" : "did not offer") + " BLE L2CAP")
    }
}
