import HybridCore
import Logging

extension HybridClientRunner {
    /// Runs one ceremony that carries `request` (command byte + CBOR, as a CTAP2 host built it)
    /// to the phone unchanged and returns the phone's reply bytes (status byte + CBOR) unchanged,
    /// whatever the status: the base layer of this runner, for callers that speak CTAP2 already
    /// (a virtual security key, a tool of one's own). The tunnel closes right after the shutdown
    /// (no linger).
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
        try await firstResponse { deliver in
            try await forward(
                ctapRequest: request, setup: HybridSessionSetup(requestType: requestType), events: events,
                onReply: deliver)
        }
    }

    /// Carries `request` to the phone like ``forward(ctapRequest:requestType:events:)``, hands the
    /// reply bytes to `onReply` as soon as they arrive, then lingers for a late update exactly as
    /// ``run(_:events:onResponse:)`` does (protocol.md §7.5, ``HybridClientOptions/linger``) and
    /// returns how the tunnel ended.
    ///
    /// - Throws: As ``forward(ctapRequest:requestType:events:)``, before the reply only;
    ///   `onReply` is then not called.
    public func forward(
        ctapRequest request: [UInt8],
        requestType: HybridRequestType,
        events: @escaping @Sendable (HybridClientEvent) -> Void = { _ in },
        onReply: @escaping @Sendable ([UInt8]) async -> Void
    ) async throws -> HybridSessionEnd {
        try await forward(
            ctapRequest: request, setup: HybridSessionSetup(requestType: requestType, linger: options.linger),
            events: events, onReply: onReply)
    }

    /// `request` carried unchanged on the CTAP layer, with `setup`'s linger.
    package func forward(
        ctapRequest request: [UInt8], setup: HybridSessionSetup,
        events: @escaping @Sendable (HybridClientEvent) -> Void, onReply: @escaping @Sendable ([UInt8]) async -> Void
    ) async throws -> HybridSessionEnd {
        try await carryCTAP(setup, events: events) { _, _ in
            request
        } finish: { reply, _ in
            reply
        } deliver: { reply in
            await onReply(reply)
        }
    }

    /// The CTAP layer: a session (``bounded(_:events:makeRequest:finish:deliver:)``) whose request
    /// frame is the CTAP2 request `makeRequest` builds from the phone's post-handshake message, once
    /// that message offers CTAP, and whose reply (status byte + CBOR) goes to `finish`.
    ///
    /// - Throws: ``HybridClientError/ctapUnsupported`` when the phone does not offer CTAP, else as
    ///   ``bounded(_:events:makeRequest:finish:deliver:)``.
    package func carryCTAP<Response: Sendable>(
        _ setup: HybridSessionSetup,
        events: @escaping @Sendable (HybridClientEvent) -> Void,
        makeRequest: @escaping @Sendable (PostHandshakeMessage, Logger) throws -> [UInt8],
        finish: @escaping @Sendable ([UInt8], PostHandshakeMessage) throws -> Response,
        deliver: @escaping @Sendable (Response) async -> Void
    ) async throws -> HybridSessionEnd {
        try await bounded(setup, events: events) { postHandshake, logger in
            guard postHandshake.effectiveFeatures.contains(.ctap) else { throw HybridClientError.ctapUnsupported }
            return .ctap(try makeRequest(postHandshake, logger))
        } finish: { reply, postHandshake in
            guard case .ctap(let bytes) = reply else { throw HybridClientError.invalidResponse(.notCTAP) }
            return try finish(bytes, postHandshake)
        } deliver: { response in
            await deliver(response)
        }
    }
}
