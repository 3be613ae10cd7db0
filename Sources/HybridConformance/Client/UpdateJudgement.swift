import HybridCore

/// Judges the authenticator's update messages (type 02, protocol.md §7.4): every one, whether it
/// came right after the post-handshake message (Chromium's phone), after the answer, or after the
/// client's shutdown (a late linking update, §7.5), must be one CBOR map whose key 1, if present,
/// is a linking map of the right structure (the Chromium client closes the connection otherwise).
/// The linking signature is not verified here.
package enum UpdateJudgement {
    /// Records ``ClientChecks/updateWellFormed`` for the update frames of `ceremonies`.
    package static func judge(_ ceremonies: [CeremonyTranscript], into report: inout ConformanceReport) {
        let check = ClientChecks.updateWellFormed
        var problems: [String] = []
        var seen: [String] = []
        for ceremony in ceremonies {
            // The post-handshake message (the first frame) has no type byte (§7.2).
            for frame in ceremony.openedFrames.dropFirst() {
                guard let message = frame.message, message.first == HybridMessageType.update.rawValue else {
                    continue
                }
                let place = "\(ceremony.request) seq \(frame.sequence)"
                if let problem = problem(Array(message.dropFirst())) {
                    problems.append("\(place): \(problem)")
                } else {
                    seen.append(place)
                }
            }
        }
        guard !problems.isEmpty || !seen.isEmpty else {
            report.skip(check, because: "the authenticator sent no update message")
            return
        }
        report.expect(
            check, problems.isEmpty,
            observed: problems.isEmpty
                ? "\(seen.count) update(s), each a CBOR map (" + seen.joined(separator: ", ") + ")"
                : problems.joined(separator: "; "))
    }

    /// What is wrong with an update's payload (after the type byte), or `nil`.
    package static func problem(_ payload: [UInt8]) -> String? {
        let value: CBORValue
        do throws(CBORError) {
            value = try CBORDecoder.decode(payload)
        } catch {
            return "the payload is not one CBOR item: \(error)"
        }
        guard value.mapEntries != nil else { return "the payload is not a CBOR map" }
        guard let linking = value[intKey: 1] else { return nil }
        do throws(HybridMessageError) {
            _ = try LinkingInfo(cborValue: linking)
        } catch {
            return "key 1 is not linking info (§7.6): \(error)"
        }
        return nil
    }
}
