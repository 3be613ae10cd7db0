import HybridCore
import Logging

extension HybridClientRunner {
    /// Asks a phone for a digital credential over hybrid, as a desktop browser does for a page's
    /// `navigator.credentials.get({digital})` (protocol.md §7.8): a QR code of request type `dcp`,
    /// the phone's post-handshake features must include `"dc"`, then one JSON request (message type
    /// 03) `{"origin", "requestType": "credential.get", "request": {"digital": …}}` and its JSON
    /// answer.
    ///
    /// - Parameters:
    ///   - request: The page's request.
    ///   - origin: The verifier page's origin; it goes to the phone, which binds the presentation to it.
    ///   - events: Progress, in order, as for ``run(_:events:)``.
    /// - Returns: The presented credential.
    /// - Throws: ``HybridClientError``: ``HybridClientError/digitalCredentialsUnsupported`` when the
    ///   phone lacks `"dc"` (nothing is sent), ``HybridClientError/digitalCredentialRefused(_:)``
    ///   with the phone's error string, ``HybridClientError/invalidResponse(_:)`` for an answer
    ///   that does not read; or `CancellationError`.
    public func requestDigitalCredential(
        _ request: DigitalCredentialRequest,
        origin: WebOrigin,
        events: @escaping @Sendable (HybridClientEvent) -> Void = { _ in }
    ) async throws -> DigitalCredential {
        let envelope: [UInt8]
        do {
            envelope = try DigitalCredentialRequestEnvelope(origin: origin.serialization, digital: request.digital)
                .encoded
        } catch {
            preconditionFailure("a DigitalCredentialRequest was checked when it was made: \(error)")
        }
        return try await carryJSON(events: events) { _, _ in
            envelope
        } finish: { reply, _ in
            try Self.digitalCredential(from: reply)
        }
    }

    /// The JSON layer, beside ``carryCTAP(_:events:makeRequest:finish:deliver:)``: one session
    /// (``bounded(_:events:makeRequest:finish:deliver:)``, a `dcp` QR code, no linger) whose
    /// request frame is the JSON `makeRequest` builds from the phone's post-handshake message, once
    /// that message offers `"dc"`, and whose JSON reply goes to `finish`; returns what `finish` made.
    ///
    /// - Throws: ``HybridClientError/digitalCredentialsUnsupported`` when the phone lacks `"dc"`
    ///   (nothing is sent), else as ``bounded(_:events:makeRequest:finish:deliver:)``.
    package func carryJSON<Response: Sendable>(
        events: @escaping @Sendable (HybridClientEvent) -> Void,
        makeRequest: @escaping @Sendable (PostHandshakeMessage, Logger) throws -> [UInt8],
        finish: @escaping @Sendable ([UInt8], PostHandshakeMessage) throws -> Response
    ) async throws -> Response {
        try await firstResponse { deliver in
            try await bounded(HybridSessionSetup(requestType: .digitalCredentialPresentation), events: events) {
                postHandshake, logger in
                // A JSON request needs "dc" (§7.2): nothing is sent otherwise.
                guard postHandshake.effectiveFeatures.contains(.digitalCredentials) else {
                    throw HybridClientError.digitalCredentialsUnsupported
                }
                return .json(try makeRequest(postHandshake, logger))
            } finish: { reply, postHandshake in
                // The session takes only a reply of the request's type (JSON).
                try finish(reply.bytes, postHandshake)
            } deliver: { response in
                await deliver(response)
            }
        }
    }

    /// The phone's JSON answer as a credential, or the error it stands for.
    static func digitalCredential(from reply: [UInt8]) throws(HybridClientError) -> DigitalCredential {
        let answer: DigitalCredentialResponseEnvelope
        do {
            answer = try DigitalCredentialResponseEnvelope(decoding: reply)
        } catch {
            throw .invalidResponse(.digitalCredential(error))
        }
        switch answer {
        case .credential(let protocolID, let data): return DigitalCredential(protocolID: protocolID, data: data)
        case .error(let code): throw .digitalCredentialRefused(code)
        }
    }
}
