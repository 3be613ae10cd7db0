import HybridCore

extension HybridClientRunner {
    /// Runs one ceremony that carries `request` (command byte + CBOR, as a CTAP2 host built it)
    /// to the phone unchanged and returns the phone's reply bytes (status byte + CBOR) unchanged,
    /// whatever the status. For bridges such as a virtual security key, which speak CTAP2 already.
    /// The tunnel closes right after the shutdown (no linger).
    ///
    /// Events, the timeout and cancellation behave as in ``run(_:events:)``; the QR code's
    /// request-type hint is `requestType`.
    ///
    /// - Throws: ``HybridClientError`` for a failed ceremony (never for a CTAP error status), or
    ///   `CancellationError` if the task is cancelled.
    package func forward(
        ctapRequest request: [UInt8],
        requestType: HybridRequestType,
        events: @escaping @Sendable (HybridClientEvent) -> Void = { _ in }
    ) async throws -> [UInt8] {
        try await bounded(requestType: requestType, events: events) { _, _ in
            request
        } finish: { reply, _ in
            reply
        }
    }

    /// Carries `request` to the phone like ``forward(ctapRequest:requestType:events:)``, hands the
    /// reply bytes to `onReply` as soon as they arrive, then lingers for a late update exactly as
    /// ``run(_:events:onResponse:)`` does (protocol.md §7.5, ``HybridClientOptions/linger``) and
    /// returns how the tunnel ended.
    ///
    /// - Throws: As ``forward(ctapRequest:requestType:events:)``, before the reply only;
    ///   `onReply` is then not called.
    package func forward(
        ctapRequest request: [UInt8],
        requestType: HybridRequestType,
        events: @escaping @Sendable (HybridClientEvent) -> Void = { _ in },
        onReply: @escaping @Sendable ([UInt8]) async -> Void
    ) async throws -> HybridSessionEnd {
        try await bounded(requestType: requestType, linger: options.linger, events: events) { _, _ in
            request
        } finish: {
            reply, _ in
            reply
        } deliver: { reply in
            await onReply(reply)
        }
    }
}
