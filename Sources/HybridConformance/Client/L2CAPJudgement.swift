import HybridCore

/// Judges the authenticator's CTAP 2.3 L2CAP channel (protocol.md §3.4): its adverts by
/// ``L2CAPRules`` (a suffix only when the QR code offered BLE L2CAP), and the sessions it offered a
/// PSM for (the session ran over that channel to its reply).
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

    /// Records ``ClientChecks/l2capSession`` for the ceremonies of `ceremonies` whose advert
    /// carried a PSM: each must have run over the phone's L2CAP channel to its reply. Skipped when
    /// no advert carried one (the QR code did not offer the channel, or the phone, for which the
    /// channel is optional, did not take it up), or when this client never tried it.
    package static func judgeSessions(_ ceremonies: [CeremonyTranscript], into report: inout ConformanceReport) {
        let offered = ceremonies.compactMap { ceremony -> (CeremonyTranscript, UInt16)? in
            guard let serviceData = ceremony.advert?.serviceData,
                serviceData.count > AdvertServiceData.advertByteCount,
                let suffix = try? AdvertSuffix(decoding: serviceData.dropFirst(AdvertServiceData.advertByteCount)),
                let psm = suffix.psm
            else { return nil }
            return (ceremony, psm)
        }
        guard !offered.isEmpty else {
            report.skip(
                ClientChecks.l2capSession,
                because: "no advert carried a PSM: the QR code did not offer BLE L2CAP (this adapter cannot, or "
                    + "--channel tunnel), or the phone did not offer its channel (optional)")
            return
        }
        let tried = offered.filter { $0.0.l2capAttempt != nil }
        guard !tried.isEmpty else {
            report.skip(
                ClientChecks.l2capSession,
                because: "the phone advertised PSM \(offered[0].1), but this client did not try it "
                    + "(--channel auto or l2cap tries it)")
            return
        }
        var carried: [String] = []
        for (ceremony, psm) in tried {
            let ranOverL2CAP = ceremony.channel == .l2cap && ceremony.l2capGivenUp == nil
            guard ranOverL2CAP, ceremony.reply != nil else {
                let how =
                    ceremony.l2capGivenUp.map { "the client gave the channel up: \($0)" }
                    ?? (ceremony.channel == .l2cap
                        ? "the session over it ended without a reply: \(ceremony.failure ?? "no reply")"
                        : "the session did not run over it: \(ceremony.failure ?? "no channel opened")")
                let fellBack =
                    ceremony.channel == .tunnel && ceremony.reply != nil ? " (it fell back to the tunnel)" : ""
                report.fail(
                    ClientChecks.l2capSession,
                    observed: "\(ceremony.request): the phone advertised PSM \(psm); \(how)\(fellBack)")
                return
            }
            carried.append("\(ceremony.request) over PSM \(psm)")
        }
        report.pass(
            ClientChecks.l2capSession,
            observed: carried.joined(separator: ", ") + ": the handshake, the request and the reply on the channel")
    }
}
