import HybridCore

/// Judges the transport crypter's sequence limit live (protocol.md §7.1): a counter above
/// 2^24 − 1 must make every operation fail. Two QR ceremonies of `hybrid-conformance client
/// --sequence-limit` walk the phone's read counter there with empty client updates, which a phone
/// only checks to be CBOR (§7.3), and then send one getInfo:
/// - *at the limit*: 2^24 − 1 updates, then the getInfo with the last usable sequence number,
///   2^24 − 1. The phone must answer it: this shows that the updates got through and that the
///   phone counts as the client does.
/// - *past the limit*: 2^24 updates, then the getInfo sealed with 2^24 (the judge ignores its own
///   limit for this one message). A phone that follows the rule cannot open it and closes.
package enum SequenceLimitJudgement {
    /// The check, reported only when the probe ran.
    package static let check = ConformanceCheck(
        id: "client.transport.sequence-limit",
        title:
            "a message with a sequence number past 2^24 − 1 is never opened: the phone answers a request sealed "
            + "with 16,777,215 and not one sealed with 16,777,216",
        reference: "protocol.md §7.1",
        source:
            "advice: reference behaviour of Chromium's Crypter, whose nonce counter refuses to pass 2^24 − 1 "
            + "(protocol.md §7.1, from v2_handshake.cc); no text we could read states the limit, no reference peer "
            + "sends that many messages in one session, and the nonce does not repeat before 2^32",
        required: false)

    /// The number of client updates before the request at the limit, and the request's sequence.
    package static let updatesAtLimit = TransportCrypter.maxSequence
    /// The number of client updates before the request past the limit, and the request's sequence.
    package static let updatesPastLimit = TransportCrypter.maxSequence + 1

    /// The CTAP getInfo both ceremonies send: a request any phone answers without asking the user.
    package static let request: [UInt8] = [0x04]

    /// Judges the two ceremonies: pass when the phone answered the request at the limit and not the
    /// one past it; fail (a warning, since the check is advice) when it answered past the limit; skip when it did not answer at the limit
    /// (it stopped reading updates, or counts differently), so that nothing can be said.
    package static func judge(
        atLimit: CeremonyTranscript, pastLimit: CeremonyTranscript, into report: inout ConformanceReport
    ) {
        let beyond = ConsentJudgement.ctapReplies(pastLimit)
        if let reply = beyond.first {
            report.fail(
                check,
                observed: "answered (status 0x\(Hex.encode(Array(reply.prefix(1))))) a request sealed with sequence "
                    + "\(updatesPastLimit), past the limit, after \(updatesPastLimit) client updates")
            return
        }
        guard let reply = ConsentJudgement.ctapReplies(atLimit).first else {
            report.skip(
                check,
                because: "no answer to the request at sequence \(updatesAtLimit) after \(updatesAtLimit) client "
                    + "updates (\(atLimit.failure ?? "no reason given")), so the limit cannot be told apart")
            return
        }
        report.pass(
            check,
            observed: "answered at sequence \(updatesAtLimit) (status 0x\(Hex.encode(Array(reply.prefix(1))))); "
                + "no answer at \(updatesPastLimit) (\(pastLimit.failure ?? "the session ended"))")
    }
}
