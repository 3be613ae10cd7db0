import HybridCore

/// Judges an authenticator's digital-credential path (protocol.md §7.8) from what the conformance
/// client saw in a few `dcp` QR ceremonies. Sans-IO: the driver runs the probes (a valid request
/// first, then bad inputs, then a valid request again) and hands over one ``Probe`` each.
package enum DigitalCredentialJudgement {
    /// One `dcp` QR ceremony.
    package struct Probe: Sendable {
        /// What the request was: `valid`, `malformed JSON`, `requestType credential.create`, `oversized`.
        package let name: String
        /// The effective post-handshake features, if the handshake got that far (`[]` when all that
        /// is known is that `"dc"` was missing).
        package var features: [HybridFeature]?
        /// The phone's reply to the JSON request (after the type byte), if one came.
        package var reply: [UInt8]?
        /// Why the ceremony ended without a reply.
        package var failure: String?

        package init(name: String, features: [HybridFeature]? = nil, reply: [UInt8]? = nil, failure: String? = nil) {
            self.name = name
            self.features = features
            self.reply = reply
            self.failure = failure
        }
    }

    package static let features = ConformanceCheck(
        id: "client.dc.features",
        title: "a QR code of request type \"dcp\" gets the post-handshake feature \"dc\" (a phone without it is "
            + "never sent JSON)",
        reference: "protocol.md §7.2, §7.8",
        source: "advice: a phone need not serve digital credentials; Chromium then sends it nothing (protocol.md §7.8)",
        required: false)
    package static let answer = ConformanceCheck(
        id: "client.dc.answer",
        title: "the JSON request is answered with one type-03 message Chromium reads: "
            + "{\"response\": {\"digital\": {\"data\": {\"protocol\", \"data\"}}}} or {… {\"error\": string}}",
        reference: "protocol.md §7.8",
        source:
            "reference behaviour: Chromium's OnComplete reads exactly these shapes and fails the request otherwise "
            + "(protocol.md §7.8, from cross_device_request_dispatcher.cc); PXP carries the Digital Credentials API's "
            + "answer (protocol and data)")
    package static let badInput = ConformanceCheck(
        id: "client.dc.bad-input",
        title: "malformed JSON, a wrong requestType and an oversized request get a type-03 error answer or a "
            + "closed tunnel, never a credential",
        reference: "protocol.md §7.8",
        source:
            "advice (security): no rule we could read says how a phone answers a request it cannot read, and "
            + "the oversized request is beyond our 1 MiB − 64 byte bound, not a limit of the protocol; a credential "
            + "for such a request is one the user was not shown correctly",
        required: false)
    package static let survives = ConformanceCheck(
        id: "client.dc.survives-bad-input",
        title: "after the bad inputs the phone still answers a valid request",
        reference: "protocol.md §7.8",
        source: "advice (robustness): each probe is its own session; a phone that stops serving is broken but breaks "
            + "no rule we could name",
        required: false)

    /// Every check of this judgement.
    package static let all = [features, answer, badInput, survives]

    /// Records the four checks. `probes` are in the order they ran: the first and the last valid.
    package static func judge(_ probes: [Probe], into report: inout ConformanceReport) {
        guard let first = probes.first else {
            for check in all { report.skip(check, because: "no digital-credential probe ran") }
            return
        }
        guard let offered = first.features else {
            for check in all {
                report.skip(
                    check, because: "the first dcp ceremony got no post-handshake message (\(first.failure ?? "?"))")
            }
            return
        }
        guard offered.contains(.digitalCredentials) else {
            // Offering no "dc" is allowed (not every phone holds credentials); the client then
            // sends nothing, which the client side of this package guarantees.
            report.skip(features, because: "the phone offers no \"dc\" for a dcp QR code")
            for check in [answer, badInput, survives] {
                report.skip(check, because: "the phone does not offer \"dc\"")
            }
            return
        }
        report.pass(features, observed: "features \(offered.map(\.rawValue))")
        report.expect(answer, reads(first.reply), observed: describe(first))

        let bad = probes.dropFirst().dropLast()
        var problems: [String] = []
        for probe in bad {
            guard let reply = probe.reply else { continue }  // a closed tunnel is a fine answer
            switch try? DigitalCredentialResponseEnvelope(decoding: reply) {
            case .error: continue
            case .credential: problems.append("\(probe.name): answered with a credential")
            case nil:
                problems.append(
                    "\(probe.name): answer does not read (\(String(decoding: reply.prefix(80), as: UTF8.self)))")
            }
        }
        if bad.isEmpty {
            report.skip(badInput, because: "no bad input was sent")
        } else {
            report.expect(
                badInput, problems.isEmpty,
                observed: problems.isEmpty
                    ? bad.map { "\($0.name): \(describe($0))" }.joined(separator: "; ")
                    : problems.joined(separator: "; "))
        }
        if probes.count > 1, let last = probes.last {
            report.expect(survives, reads(last.reply), observed: describe(last))
        } else {
            report.skip(survives, because: "no second valid request was sent")
        }
    }

    private static func reads(_ reply: [UInt8]?) -> Bool {
        guard let reply else { return false }
        return (try? DigitalCredentialResponseEnvelope(decoding: reply)) != nil
    }

    private static func describe(_ probe: Probe) -> String {
        guard let reply = probe.reply else { return "no answer (\(probe.failure ?? "closed"))" }
        switch try? DigitalCredentialResponseEnvelope(decoding: reply) {
        case .credential(let protocolID, let data):
            return "credential (\(protocolID ?? "no protocol"), \(data.count) bytes)"
        case .error(let code): return "error \(code)"
        case nil: return "unreadable answer (\(reply.count) bytes)"
        }
    }
}
