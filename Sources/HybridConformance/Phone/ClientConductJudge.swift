import Crypto
import Foundation
import HybridCTAP
import HybridCore

/// Judges what a client under test sends on the tunnel, message by message, as a strict phone
/// sees it: the handshake layout, then for every later message the decryption, padding, type,
/// CTAP request and the session's shape (one request, shutdown after the reply). Sans-IO: the
/// driver feeds it each client message (with the padded plaintext the phone's session decrypted)
/// and the moment the reply went out; ``record(into:)`` writes the `phone.handshake.*`,
/// `phone.transport.*`, `phone.frame.*`, `phone.ctap.*`, `phone.dc.*` and `phone.session.*` results.
package struct ClientConductJudge: Sendable {
    private enum Event: Sendable, Equatable {
        case request
        case shutdown
        case update
        case reply
        case unreadable
    }

    private let revision: HybridProtocolRevision
    private let hint: HybridRequestType?
    private let phoneHangsUp: Bool
    private var features: [HybridFeature]
    private var featureProblems: [String] = []
    private var jsonRequests: [DigitalCredentialRequestConduct] = []
    private var handshake: (bytes: [UInt8], accepted: Bool)?
    private var events: [Event] = []
    private var decryptFailures: [String] = []
    private var paddingProblems: [String] = []
    private var paddedLengths = ObservedList<Int>()
    private var typeProblems = ObservedList<String>()
    private var types = ObservedList<String>()
    private var requests: [String] = []
    private var cborProblems: [String] = []
    private var commandProblems: [String] = []
    private var hintProblems: [String] = []
    private var preflights: [String] = []
    private var shutdownPayloads: [Int] = []

    /// - Parameters:
    ///   - revision: the revision the phone speaks (a revision-0 profile has no type bytes).
    ///   - hint: the QR code's request type, if it had one.
    ///   - phoneHangsUp: the phone closes right after its reply, so the client's shutdown cannot be judged.
    ///   - features: the phone's post-handshake features (key 3), if known already.
    package init(
        revision: HybridProtocolRevision = .one, hint: HybridRequestType? = nil, phoneHangsUp: Bool = false,
        features: [HybridFeature] = [.ctap]
    ) {
        self.revision = revision
        self.hint = hint
        self.phoneHangsUp = phoneHangsUp
        self.features = features
    }

    /// The post-handshake features (key 3) the phone offers, once its session is configured.
    package mutating func phoneOffers(_ features: [HybridFeature]) { self.features = features }

    /// One client message. `paddedPlaintext` is what the phone's session decrypted (`nil` for the
    /// handshake message or when it did not authenticate); `accepted` says whether the session took it.
    package mutating func observe(_ message: [UInt8], paddedPlaintext: [UInt8]?, accepted: Bool) {
        guard handshake != nil else {
            handshake = (message, accepted)
            return
        }
        guard let padded = paddedPlaintext else {
            decryptFailures.append("message \(events.count + 1) (\(message.count) bytes) does not decrypt")
            events.append(.unreadable)
            return
        }
        judgePadding(padded)
        paddedLengths.append(padded.count)
        guard let plaintext = try? TransportPadding.unpad(padded) else {
            events.append(.unreadable)
            return
        }
        judgeFrame(plaintext)
    }

    /// The phone sent its reply to the request.
    package mutating func replySent() { events.append(.reply) }

    /// Records every message check as skipped, `because` (nothing reached the tunnel).
    package static func skipAll(because reason: String, into report: inout ConformanceReport) {
        for check in checks { report.skip(check, because: reason) }
    }

    /// Records the results. Checks with nothing to judge are skipped with the reason.
    package func record(into report: inout ConformanceReport) {
        guard let handshake else {
            for check in Self.checks { report.skip(check, because: "the client sent no handshake message") }
            return
        }
        let layout = Self.layoutProblem(handshake.bytes)
        report.expect(
            PhoneChecks.handshakeLayout, layout == nil,
            observed: layout ?? "81 bytes: 04 point on the curve, 16-byte tag")
        report.expect(
            PhoneChecks.handshakeAccepted, handshake.accepted,
            observed: handshake.accepted
                ? "accepted: the handshake completed" : "refused by the phone's Noise responder")
        guard handshake.accepted else {
            for check in Self.checks.dropFirst(2) { report.skip(check, because: "the handshake failed") }
            return
        }
        guard !events.isEmpty else {
            for check in Self.checks.dropFirst(2) where !PhoneChecks.digitalCredentials.contains(check) {
                report.skip(check, because: "the client sent nothing after the handshake")
            }
            // Sending nothing is what a client must do when the phone lacks the feature it needs.
            recordDigitalCredentialChecks(into: &report)
            return
        }
        report.expect(
            PhoneChecks.transportDecrypts, decryptFailures.isEmpty,
            observed: decryptFailures.isEmpty
                ? "\(paddedLengths.count) messages decrypted in sequence" : decryptFailures.joined(separator: "; "))
        report.expect(
            PhoneChecks.transportPadding, paddingProblems.isEmpty,
            observed: paddingProblems.isEmpty
                ? "padded to \(paddedLengths.listed) bytes"
                : paddingProblems.joined(separator: "; "))
        report.expect(
            PhoneChecks.frameType, typeProblems.isEmpty,
            observed: typeProblems.isEmpty
                ? "types: \(types.listed)" : typeProblems.listed(separator: "; "))
        recordRequestChecks(into: &report)
        let count = events.filter { $0 == .request }.count
        if count == 0, let missing = featureTheQRCodeNeedsAndLacks {
            report.pass(PhoneChecks.oneRequest, observed: "no request: the phone lacks \(missing) for this QR code")
        } else {
            report.expect(
                PhoneChecks.oneRequest, count == 1,
                observed: count == 1 ? "one request" : "\(count) requests: \(requests.joined(separator: ", "))")
        }
        recordShutdown(into: &report)
        recordDigitalCredentialChecks(into: &report)
    }

    private func recordRequestChecks(into report: inout ConformanceReport) {
        if hint == nil {
            report.skip(PhoneChecks.ctapMatchesHint, because: "the QR code has no request type")
        } else if requests.isEmpty {
            report.skip(PhoneChecks.ctapMatchesHint, because: "no request arrived")
        } else {
            report.expect(
                PhoneChecks.ctapMatchesHint, hintProblems.isEmpty,
                observed: hintProblems.isEmpty ? "matches the QR hint" : hintProblems.joined(separator: "; "))
        }
        guard requests.count > jsonRequests.count else {
            for check in [PhoneChecks.ctapCanonicalCBOR, PhoneChecks.ctapCommand, PhoneChecks.noSilentPreflight] {
                report.skip(check, because: "no CTAP request arrived")
            }
            return
        }
        let seen = requests.joined(separator: "; ")
        report.expect(
            PhoneChecks.ctapCanonicalCBOR, cborProblems.isEmpty,
            observed: cborProblems.isEmpty ? seen : cborProblems.joined(separator: "; "))
        report.expect(
            PhoneChecks.ctapCommand, commandProblems.isEmpty,
            observed: commandProblems.isEmpty ? seen : commandProblems.joined(separator: "; "))
        report.expect(
            PhoneChecks.noSilentPreflight, preflights.isEmpty,
            observed: preflights.isEmpty ? "no getAssertion with up = false" : preflights.joined(separator: "; "))
    }

    private func recordDigitalCredentialChecks(into report: inout ConformanceReport) {
        let offered = "[" + features.map { "\"\($0.rawValue)\"" }.joined(separator: ", ") + "]"
        if requests.isEmpty {
            report.pass(PhoneChecks.dcFeatures, observed: "no request sent to a phone that offered \(offered)")
        } else {
            report.expect(
                PhoneChecks.dcFeatures, featureProblems.isEmpty,
                observed: featureProblems.isEmpty
                    ? "requests matched the phone's features \(offered)" : featureProblems.joined(separator: "; "))
        }
        guard !jsonRequests.isEmpty else {
            for check in PhoneChecks.digitalCredentials where check != PhoneChecks.dcFeatures {
                report.skip(check, because: "no JSON request arrived")
            }
            return
        }
        let seen = jsonRequests.map(\.summary).joined(separator: "; ")
        let invalid = jsonRequests.compactMap(\.json)
        report.expect(
            PhoneChecks.dcJSON, invalid.isEmpty, observed: invalid.isEmpty ? seen : invalid.joined(separator: "; "))
        let readable = jsonRequests.filter { $0.json == nil }
        guard !readable.isEmpty else {
            for check in [PhoneChecks.dcJSONBounds, PhoneChecks.dcEnvelope, PhoneChecks.dcCanonical] {
                report.skip(check, because: "the JSON request is not valid JSON")
            }
            return
        }
        let outOfBounds = readable.compactMap(\.bounds)
        report.expect(
            PhoneChecks.dcJSONBounds, outOfBounds.isEmpty,
            observed: outOfBounds.isEmpty ? "within 32 levels, no name twice" : outOfBounds.joined(separator: "; "))
        let envelope = readable.flatMap(\.envelope)
        report.expect(
            PhoneChecks.dcEnvelope, envelope.isEmpty,
            observed: envelope.isEmpty ? seen : envelope.joined(separator: "; "))
        let canonical = readable.compactMap(\.canonical)
        report.expect(
            PhoneChecks.dcCanonical, canonical.isEmpty,
            observed: canonical.isEmpty ? "compact, members sorted" : canonical.joined(separator: "; "))
    }

    private func recordShutdown(into report: inout ConformanceReport) {
        if phoneHangsUp {
            report.skip(PhoneChecks.shutdownAfterReply, because: "this profile hangs up right after the reply")
            return
        }
        guard let reply = events.firstIndex(of: .reply) else {
            if let missing = featureTheQRCodeNeedsAndLacks, !events.contains(.request) {
                // Nothing to ask for: ending the session at once is right (Chromium sends 00).
                let onlyShutdown = events.allSatisfy { $0 == .shutdown || $0 == .update } && events.count <= 1
                report.expect(
                    PhoneChecks.shutdownAfterReply, onlyShutdown,
                    observed: onlyShutdown
                        ? "no request, as the phone lacks \(missing); the client ended the session"
                        : "\(events.count) messages without a request")
                return
            }
            let early = events.contains(.shutdown)
            if early {
                report.fail(PhoneChecks.shutdownAfterReply, observed: "shutdown before the phone replied")
            } else {
                report.skip(PhoneChecks.shutdownAfterReply, because: "the phone sent no valid reply")
            }
            return
        }
        let before = events[..<reply].filter { $0 == .shutdown }.count
        let after = Array(events[(reply + 1)...].filter { $0 != .update })
        switch revision {
        case .zero:
            report.expect(
                PhoneChecks.shutdownAfterReply, after.isEmpty,
                observed: after.isEmpty
                    ? "revision 0: nothing after the reply; the client ends by closing"
                    : "revision 0 has no shutdown, yet \(after.count) messages followed the reply")
        case .one:
            var problems: [String] = []
            if before > 0 { problems.append("shutdown before the reply") }
            if after.first != .shutdown {
                problems.append(
                    after.isEmpty ? "no shutdown after the reply" : "the first message after the reply is not shutdown")
            }
            if after.count > 1 { problems.append("\(after.count - 1) messages after shutdown") }
            if let length = shutdownPayloads.first(where: { $0 > 0 }) {
                problems.append("shutdown carries \(length) payload bytes")
            }
            report.expect(
                PhoneChecks.shutdownAfterReply, problems.isEmpty,
                observed: problems.isEmpty ? "00 after the reply, then nothing" : problems.joined(separator: "; "))
        }
    }

    private mutating func judgePadding(_ padded: [UInt8]) {
        guard let unpadded = try? TransportPadding.unpad(padded) else {
            paddingProblems.append(
                "\(padded.count) bytes with a count byte of \(padded.last.map(String.init) ?? "none")")
            return
        }
        if TransportPadding.pad(unpadded) != padded {
            let count = Int(padded.last ?? 0)
            let zeros = padded[(padded.count - count - 1)..<(padded.count - 1)].allSatisfy { $0 == 0 }
            paddingProblems.append(
                "\(unpadded.count) bytes padded to \(padded.count) with \(count) \(zeros ? "zero" : "non-zero") bytes, "
                    + "expected \(TransportPadding.pad(unpadded).count)")
        }
    }

    private mutating func judgeFrame(_ plaintext: [UInt8]) {
        let frame: HybridFrame
        do {
            frame = try HybridFrame(decoding: plaintext, revision: revision)
        } catch {
            typeProblems.append("\(error)")
            events.append(.unreadable)
            return
        }
        switch frame.type {
        case .ctap:
            types.append("01")
            events.append(.request)
            judgeFeature(.ctap)
            judgeRequest(frame.payload)
        case .json:
            types.append("03")
            events.append(.request)
            judgeFeature(.digitalCredentials)
            let conduct = DigitalCredentialRequestConduct(judging: frame.payload, hint: hint)
            if let hint, hint != .digitalCredentialPresentation, hint != .digitalCredentialIssuance {
                hintProblems.append("QR hint \(hint.hint), a JSON request")
            }
            jsonRequests.append(conduct)
            requests.append(conduct.summary)
        case .shutdown:
            types.append("00")
            events.append(.shutdown)
            shutdownPayloads.append(frame.payload.count)
        case .update:
            types.append("02")
            typeProblems.append("the client sent an update (02), which only phones send")
            events.append(.update)
        }
    }

    /// The feature a QR code's request needs that the phone did not offer (`"dc"` for a `dcp` or
    /// `dci` code to a phone without it), if so: the client then has nothing to send (§7.8).
    private var featureTheQRCodeNeedsAndLacks: String? {
        guard revision == .one, hint == .digitalCredentialPresentation || hint == .digitalCredentialIssuance,
            !features.contains(.digitalCredentials)
        else { return nil }
        return "\"dc\""
    }

    /// Revision 0 has no type bytes and no features: every request is CTAP (§7.2).
    private mutating func judgeFeature(_ feature: HybridFeature) {
        guard revision == .one, !features.contains(feature) else { return }
        let kind = feature == .ctap ? "a CTAP request (01)" : "a JSON request (03)"
        let offered = features.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        featureProblems.append("\(kind) to a phone that offered [\(offered)]")
    }

    private mutating func judgeRequest(_ bytes: [UInt8]) {
        guard let first = bytes.first else {
            cborProblems.append("empty CTAP message")
            requests.append("empty")
            return
        }
        let command = CTAPCommand(rawValue: first)
        let name = command.name ?? String(format: "command 0x%02x", first)
        let parameters = Array(bytes.dropFirst())
        var description = "\(name) (\(bytes.count) bytes)"
        if !parameters.isEmpty {
            do {
                let map = try CBORDecoder.decode(parameters)
                if let entries = map.mapEntries {
                    description =
                        "\(name) keys {\(entries.map { QRCodeConformance.describe($0.key) }.joined(separator: ","))}"
                    if let options = map[intKey: command == .getAssertion ? 5 : 7] {
                        description += " options \(QRCodeConformance.describe(options))"
                    }
                } else {
                    cborProblems.append("\(name) parameters are canonical CBOR but not a map")
                }
                if command == .getAssertion, map[intKey: 5]?[textKey: "up"]?.boolValue == false {
                    preflights.append("getAssertion with up = false")
                }
            } catch {
                cborProblems.append("\(name) parameters are not canonical CBOR: \(error)")
            }
        }
        requests.append(description)
        if command != .makeCredential && command != .getAssertion {
            commandProblems.append("\(name) is not a WebAuthn ceremony")
        }
        if let hint {
            let expected: CTAPCommand? =
                switch hint {
                case .makeCredential: .makeCredential
                case .getAssertion: .getAssertion
                case .digitalCredentialPresentation, .digitalCredentialIssuance: nil
                }
            if expected != command { hintProblems.append("QR hint \(hint.hint), request \(name)") }
        }
    }

    /// Why msg1 does not have the KNpsk0 layout, or `nil`.
    static func layoutProblem(_ message: [UInt8]) -> String? {
        guard message.count == 81 else { return "\(message.count) bytes, expected 81" }
        guard message[0] == 0x04 else { return String(format: "the point starts with 0x%02x, not 04", message[0]) }
        guard (try? P256.KeyAgreement.PublicKey(x963Representation: message[..<65])) != nil else {
            return "the 65-byte point is not on P-256"
        }
        return nil
    }

    private static let checks: [ConformanceCheck] =
        [
            PhoneChecks.handshakeLayout, PhoneChecks.handshakeAccepted, PhoneChecks.transportDecrypts,
            PhoneChecks.transportPadding, PhoneChecks.frameType, PhoneChecks.ctapCanonicalCBOR, PhoneChecks.ctapCommand,
            PhoneChecks.ctapMatchesHint, PhoneChecks.noSilentPreflight, PhoneChecks.oneRequest,
            PhoneChecks.shutdownAfterReply,
        ] + PhoneChecks.digitalCredentials
}
