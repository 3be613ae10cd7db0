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
        return try await bounded(requestType: .digitalCredentialPresentation, carrying: .json, events: events) { _, _ in
            envelope
        } finish: { reply, _ in
            try Self.digitalCredential(from: reply)
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
