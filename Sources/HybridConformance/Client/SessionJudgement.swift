import HybridCore

/// Judges the session layer of the client mode's ceremonies (handshake, crypter construction,
/// padding, post-handshake message, the reply): each check once, over every ceremony.
package enum SessionJudgement {
    /// Records the session checks for `ceremonies` (in the order they ran) into `report`.
    package static func judge(_ ceremonies: [CeremonyTranscript], into report: inout ConformanceReport) {
        judgeHandshake(ceremonies, into: &report)
        guard ceremonies.contains(where: { !$0.openedFrames.isEmpty }) else {
            for check in [
                ClientChecks.construction, ClientChecks.paddingLength, ClientChecks.paddingZeros,
                ClientChecks.postHandshake, ClientChecks.postHandshakeRevision,
            ] {
                report.skip(check, because: "no frame from the authenticator decrypted")
            }
            judgeReply(ceremonies, into: &report)
            return
        }
        judgeFrames(ceremonies, into: &report)
        judgePostHandshake(ceremonies, into: &report)
        judgeReply(ceremonies, into: &report)
    }

    private static func judgeHandshake(_ ceremonies: [CeremonyTranscript], into report: inout ConformanceReport) {
        var problems: [String] = []
        for ceremony in ceremonies {
            switch ceremony.messages.first {
            case .message2(nil)?: continue
            case .message2(let error?)?: problems.append("\(ceremony.request): msg2 rejected: \(error)")
            default: problems.append("\(ceremony.request): no msg2 (\(ceremony.failure ?? "no message"))")
            }
        }
        report.expect(
            ClientChecks.handshake, problems.isEmpty,
            observed: problems.isEmpty ? "\(ceremonies.count) handshakes completed" : problems.joined(separator: "; "))
    }

    private static func judgeFrames(_ ceremonies: [CeremonyTranscript], into report: inout ConformanceReport) {
        var old: [String] = []
        var lengthProblems: [String] = []
        var nonZero: [String] = []
        var count = 0
        for ceremony in ceremonies {
            for message in ceremony.messages {
                if case .unopened(let sequence, let length) = message {
                    lengthProblems.append("\(ceremony.request) seq \(sequence): \(length) bytes did not decrypt")
                }
            }
            for frame in ceremony.openedFrames {
                count += 1
                if frame.construction == .old { old.append("\(ceremony.request) seq \(frame.sequence)") }
                if let problem = frame.paddingLengthProblem { lengthProblems.append("\(ceremony.request) \(problem)") }
                if !frame.paddingIsZero { nonZero.append("\(ceremony.request) seq \(frame.sequence)") }
            }
        }
        report.expect(
            ClientChecks.construction, old.isEmpty,
            observed: old.isEmpty
                ? "\(count) frames, new construction" : "old construction: " + old.joined(separator: ", "))
        report.expect(
            ClientChecks.paddingLength, lengthProblems.isEmpty,
            observed: lengthProblems.isEmpty
                ? "\(count) frames padded to multiples of 32" : lengthProblems.joined(separator: "; "))
        report.expect(
            ClientChecks.paddingZeros, nonZero.isEmpty,
            observed: nonZero.isEmpty
                ? "all padding bytes zero" : "non-zero padding: " + nonZero.joined(separator: ", "))
    }

    private static func judgePostHandshake(_ ceremonies: [CeremonyTranscript], into report: inout ConformanceReport) {
        var problems: [String] = []
        var shapes: [String] = []
        var legacy: [String] = []
        for ceremony in ceremonies {
            guard let first = ceremony.openedFrames.first else { continue }
            guard let plaintext = first.message else {
                problems.append("\(ceremony.request): padding cannot be stripped")
                continue
            }
            do throws(HybridMessageError) {
                let message = try PostHandshakeMessage(decoding: plaintext)
                let strict = strictProblems(plaintext, message)
                problems += strict.map { "\(ceremony.request): \($0)" }
                shapes.append(describe(message))
                if message.revision == .zero || message.features == nil {
                    legacy.append("\(ceremony.request): \(describe(message))")
                }
            } catch {
                problems.append("\(ceremony.request): \(error)")
            }
        }
        let shape = Set(shapes).sorted().joined(separator: " / ")
        report.expect(
            ClientChecks.postHandshake, problems.isEmpty,
            observed: problems.isEmpty ? shape : problems.joined(separator: "; "))
        report.expect(
            ClientChecks.postHandshakeRevision, legacy.isEmpty,
            observed: legacy.isEmpty ? "revision 1 with key 3" : legacy.joined(separator: "; "))
    }

    /// What the lenient parser accepts but a strict client reports: non-text features, a missing
    /// "ctap" feature, a getInfo absent although CTAP is offered.
    private static func strictProblems(_ plaintext: [UInt8], _ message: PostHandshakeMessage) -> [String] {
        var problems: [String] = []
        if message.revision == .one, let map = try? CBORDecoder.decode(plaintext),
            let features = map[intKey: 3]?.arrayValue, features.contains(where: { $0.textValue == nil })
        {
            problems.append("key 3 holds a non-text entry")
        }
        if !message.effectiveFeatures.contains(.ctap) { problems.append("no \"ctap\" feature") }
        if message.getInfo == nil { problems.append("no getInfo at key 1") }
        return problems
    }

    private static func describe(_ message: PostHandshakeMessage) -> String {
        var keys: [String] = []
        if message.getInfo != nil { keys.append("1: getInfo") }
        if message.linking != nil { keys.append("2: linking") }
        if let features = message.features {
            keys.append("3: [" + features.map { "\"\($0)\"" }.joined(separator: ", ") + "]")
        }
        return "revision \(message.revision.rawValue) {" + keys.joined(separator: ", ") + "}"
    }

    private static func judgeReply(_ ceremonies: [CeremonyTranscript], into report: inout ConformanceReport) {
        let problems = ceremonies.compactMap { ceremony in
            ceremony.reply == nil ? "\(ceremony.request): \(ceremony.failure ?? "no reply")" : nil
        }
        report.expect(
            ClientChecks.reply, problems.isEmpty,
            observed: problems.isEmpty ? "\(ceremonies.count) requests answered" : problems.joined(separator: "; "))
    }

    /// The getInfo bytes (post-handshake key 1) of the first ceremony that delivered one.
    package static func getInfo(_ ceremonies: [CeremonyTranscript]) -> [UInt8]? {
        for ceremony in ceremonies {
            if let plaintext = ceremony.openedFrames.first?.message,
                let getInfo = (try? PostHandshakeMessage(decoding: plaintext))?.getInfo
            {
                return getInfo
            }
        }
        return nil
    }
}
