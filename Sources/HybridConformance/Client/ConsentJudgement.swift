import HybridCore

/// Judges the probes that a careless phone fails although every reply is well formed: a silent
/// getAssertion, a second request in one session, and a QR code without a timestamp. From the
/// client's side "asked the user" is visible only as the UP flag, so a signature with UP clear
/// counts as silent.
package enum ConsentJudgement {
    /// The getAssertion with `up` = false: refused (any error status, or no reply at all), or
    /// signed with UP set (the user was asked). Status 00 with UP clear fails.
    package static func judgeSilentAssertion(_ transcript: CeremonyTranscript, into report: inout ConformanceReport) {
        let check = ClientChecks.silentAssertion
        guard let reply = transcript.reply, let status = reply.first else {
            report.pass(check, observed: "no reply (\(transcript.failure ?? "the session ended"))")
            return
        }
        guard status == 0 else {
            report.pass(check, observed: "refused with status 0x" + Hex.encode([status]))
            return
        }
        guard let flags = authenticatorDataFlags(reply) else {
            report.fail(check, observed: "status 00, and no readable authData: cannot tell whether the user was asked")
            return
        }
        report.expect(
            check, flags & 0x01 != 0,
            observed: flags & 0x01 != 0
                ? "signed with UP set (the user was asked)" : "signed without asking: status 00, UP clear")
    }

    /// The session that sent a second getAssertion after the first reply: any second reply but
    /// status 00 passes, and so does none (the phone closed the tunnel).
    package static func judgeSecondRequest(_ transcript: CeremonyTranscript, into report: inout ConformanceReport) {
        let check = ClientChecks.oneRequest
        let replies = ctapReplies(transcript)
        let failure = transcript.failure
        guard !replies.isEmpty else {
            report.skip(check, because: "the first request got no reply (\(failure ?? "no reason given"))")
            return
        }
        guard replies.count > 1, let status = replies[1].first else {
            report.pass(check, observed: "no reply to the second request (\(failure ?? "the tunnel closed"))")
            return
        }
        report.expect(
            check, status != 0,
            observed: status == 0
                ? "the second request was answered with status 00" : "refused with status 0x" + Hex.encode([status]))
    }

    /// The QR code without key 3: passes when the authenticator never answered the handshake.
    package static func judgeUndatedQRCode(_ transcript: CeremonyTranscript, into report: inout ConformanceReport) {
        let check = ClientChecks.undatedQRCode
        report.expect(
            check, transcript.messages.isEmpty,
            observed: transcript.messages.isEmpty
                ? "no handshake (\(transcript.failure ?? "no reason given"))"
                : "the authenticator answered the handshake for a QR code without a timestamp"
                    + (transcript.reply.map { ", and replied with status 0x" + Hex.encode(Array($0.prefix(1))) } ?? ""))
    }

    /// The CTAP replies (status + CBOR) among the authenticator's frames: type-01 frames after the
    /// post-handshake message (revision 1, protocol.md §7.3).
    static func ctapReplies(_ transcript: CeremonyTranscript) -> [[UInt8]] {
        transcript.openedFrames.dropFirst().compactMap(\.message).filter { $0.first == 0x01 }.map {
            Array($0.dropFirst())
        }
    }

    /// The flags byte of a getAssertion reply's authData (key 2; byte 32, after the RP ID hash).
    static func authenticatorDataFlags(_ reply: [UInt8]) -> UInt8? {
        guard let body = try? CBORDecoder.decode(Array(reply.dropFirst())),
            let authData = body[intKey: 2]?.bytesValue, authData.count > 32
        else { return nil }
        return authData[32]
    }
}
