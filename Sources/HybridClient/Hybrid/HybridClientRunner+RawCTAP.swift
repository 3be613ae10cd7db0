import HybridCore

extension HybridClientRunner {
    /// Runs one ceremony that carries `request` (command byte + CBOR, as a CTAP2 host built it)
    /// to the phone unchanged and returns the phone's reply bytes (status byte + CBOR) unchanged,
    /// whatever the status. For bridges such as a virtual security key, which speak CTAP2 already.
    ///
    /// Events, the timeout and cancellation behave as in ``run(_:events:)``; the QR code's
    /// request-type hint is `requestType`.
    ///
    /// - Throws: ``HybridClientError`` for a failed ceremony (never for a CTAP error status), or
    ///   `CancellationError` if the task is cancelled.
    public func forward(
        ctapRequest request: [UInt8],
        requestType: HybridRequestType,
        events: @escaping @Sendable (HybridClientEvent) -> Void = { _ in }
    ) async throws -> [UInt8] {
        try await bounded(requestType: requestType, events: events) { _, _ in request } finish: { reply, _ in reply }
    }
}
