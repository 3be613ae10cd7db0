import HybridCore

extension ClientServeLoop {
    /// Serves the session's one JSON request (message type 03, protocol.md §7.8): reads the
    /// envelope, hands the verifier's origin and the entries to the wallet, and answers with its
    /// presentation. Every refusal, and an envelope that does not read, gets the one error answer
    /// (``DigitalCredentialResponseEnvelope/refusal``), so nothing about the wallet's contents leaks.
    /// The events carry the origin and the answer's kind, never claim values.
    mutating func answerDigitalCredentialRequest(_ bytes: [UInt8]) async throws -> [AuthenticatorSession.Action] {
        guard let wallet = context.digitalCredentials else {
            // The session refuses JSON unless "dc" was offered, and only a wallet offers it.
            throw AuthenticatorRunnerError.unsupportedRequest("a JSON (digital credential) request, and no wallet")
        }
        let kind: DigitalCredentialAnswerKind
        var answer = DigitalCredentialResponseEnvelope.refusal
        do {
            let envelope = try DigitalCredentialRequestEnvelope(decoding: bytes)
            context.emit(
                .digitalCredentialRequest(origin: envelope.origin, protocols: envelope.requests.map(\.protocolID)))
            let entries = envelope.requests.map {
                DigitalCredentialRequestEntry(protocolID: $0.protocolID, data: $0.data)
            }
            let origin = envelope.origin
            guard
                let outcome = await Self.firstUnlessClosed(
                    channel.whenClosed, { await wallet.present(origin: origin, entries: entries) })
            else {
                try Task.checkCancellation()
                context.logger.debug("the client closed the channel while the wallet was answering")
                throw await channel.closedEarly(clientConnected: true)
            }
            switch outcome {
            case .credential(let protocolID, let data):
                do {
                    answer = .credential(protocolID: protocolID, data: data)
                    _ = try answer.encoded()
                    kind = .presented
                } catch {
                    context.logger.error(
                        "the wallet's presentation is not bounded JSON; refusing", metadata: ["error": "\(error)"])
                    answer = .refusal
                    kind = .malformedRequest
                }
            case .refused(let refusal):
                kind = DigitalCredentialAnswerKind(refusal)
            }
        } catch let error as DigitalCredentialEnvelopeError {
            context.logger.debug("unusable digital-credential request", metadata: ["error": "\(error)"])
            kind = .malformedRequest
        }
        summary.digitalCredential = kind
        context.emit(.digitalCredentialAnswered(kind))
        context.logger.debug("digital-credential request answered", metadata: ["dc.answer": "\(kind.rawValue)"])
        // The refusal always encodes; a presentation was checked above.
        let reply = context.tap.jsonReply((try? answer.encoded()) ?? [])
        return try session.requestCompleted(.json(reply))
    }
}
