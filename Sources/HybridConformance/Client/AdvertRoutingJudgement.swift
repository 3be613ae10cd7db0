import HybridCore

/// Judges whether the authenticator's adverts lead to its tunnel (protocol.md §3, §4, §5.1): each
/// advert the client matched decrypts under the QR code's EID key into a plaintext with an
/// assigned or hashed domain, and the routing ID it names is where the phone answered the
/// handshake. Adverts that never decrypted are indistinguishable from other phones' and are not
/// judged here; a ceremony without any shows up in ``ClientChecks/handshake``.
package enum AdvertRoutingJudgement {
    /// Records ``ClientChecks/advertRoutes`` for the adverts of `ceremonies`.
    package static func judge(_ ceremonies: [CeremonyTranscript], into report: inout ConformanceReport) {
        let check = ClientChecks.advertRoutes
        let advertised = ceremonies.filter { $0.advert != nil }
        guard !advertised.isEmpty else {
            report.skip(check, because: "no advert for our QR code was received")
            return
        }
        var problems: [String] = []
        var routes: [String] = []
        for ceremony in advertised {
            let route: String
            switch ceremony.advertPlaintext {
            case .success(let plaintext):
                route = "routing ID \(Hex.encode(plaintext.routingID.bytes).uppercased()), \(plaintext.domainID)"
            case .failure(let error):
                problems.append(
                    "\(ceremony.request): the advert does not decrypt under the QR code's EID key: \(error)")
                continue
            case nil:
                problems.append("\(ceremony.request): the advert was not decrypted")
                continue
            }
            guard case .message2? = ceremony.messages.first else {
                problems.append(
                    "\(ceremony.request): no handshake answer on the advertised tunnel (\(route)): "
                        + (ceremony.failure ?? "no reason given"))
                continue
            }
            routes.append(route)
        }
        report.expect(
            check, problems.isEmpty,
            observed: problems.isEmpty
                ? "\(routes.count) advert(s) decrypt; the phone answered on "
                    + Set(routes).sorted().joined(separator: "; ")
                : problems.joined(separator: "; "))
    }
}
