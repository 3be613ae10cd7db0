import HybridCTAP
import HybridClient
import HybridCore

/// Runs one phone ceremony for the bridge: carries a CTAP2 request to the phone, hands its
/// reply bytes over unchanged as soon as they arrive, then keeps the tunnel open for a late update
/// (protocol.md §7.5). ``HybridPhoneDriver`` is the real one; tests script a phone.
public protocol PhoneCeremonyDriver: Sendable {
    /// Calls `onReply` once with the phone's reply (status byte + CBOR), then returns when the
    /// tunnel has closed after its linger, with how it ended. The bridge ends the linger by
    /// cancelling the task (its own deadline, the next ceremony, exit), so a driver need not
    /// time it.
    ///
    /// - Throws: Before the reply only (`onReply` is then not called): `CancellationError` when
    ///   the task is cancelled, any other error for a failed ceremony. Cancelled after the reply,
    ///   it ends the linger and returns.
    func forward(
        _ request: [UInt8],
        requestType: HybridRequestType,
        events: @escaping @Sendable (HybridClientEvent) -> Void,
        onReply: @escaping @Sendable ([UInt8]) async -> Void
    ) async throws -> HybridSessionEnd
}

/// The phone over hybrid: QR code, Bluetooth, tunnel, through `HybridClientRunner`. The tunnel
/// lingers until the bridge ends it (the bridge's `linger`); the runner's `HybridClientOptions/linger`
/// is not used.
public struct HybridPhoneDriver: PhoneCeremonyDriver {
    /// The longest linger on the runner's side, a backstop only: the bridge ends every linger at
    /// its own deadline, at most the hour `hybrid-security-key --linger` allows.
    package static let lingerBackstop = Duration.seconds(24 * 3600)

    /// The runner that shows the QR code and runs each hybrid ceremony.
    public let runner: HybridClientRunner

    /// A driver that runs every ceremony through `runner`.
    public init(runner: HybridClientRunner) { self.runner = runner }

    /// Forwards `request` to the phone through `HybridClientRunner`; see
    /// ``PhoneCeremonyDriver/forward(_:requestType:events:onReply:)``.
    public func forward(
        _ request: [UInt8],
        requestType: HybridRequestType,
        events: @escaping @Sendable (HybridClientEvent) -> Void,
        onReply: @escaping @Sendable ([UInt8]) async -> Void
    ) async throws -> HybridSessionEnd {
        try await runner.forward(
            ctapRequest: request, setup: HybridSessionSetup(requestType: requestType, linger: Self.lingerBackstop),
            events: events, onReply: onReply)
    }
}

/// The CTAP2 status a program gets when a ceremony fails before the phone answered.
package enum CeremonyFailureStatus {
    /// - Cancelled (by the program, or on this computer): CTAP2_ERR_KEEPALIVE_CANCEL.
    /// - The ceremony's time ran out (nobody scanned the QR code, the phone never answered):
    ///   CTAP2_ERR_USER_ACTION_TIMEOUT, which programs show as "timed out".
    /// - Bluetooth, tunnel or session failures (a lost tunnel among them), a phone without CTAP:
    ///   CTAP1_ERR_OTHER, an error and not a refusal: programs report a failure, not "denied".
    ///   A refusal on the phone arrives as the phone's own status and is passed through unchanged.
    package static func status(for error: any Error) -> CTAPStatusCode {
        if error is CancellationError || error is CancelledOnThisComputer { return .keepaliveCancel }
        guard let error = error as? HybridClientError else { return .other }
        switch error {
        case .timedOut: return .userActionTimeout
        default: return error.ctapStatus ?? .other
        }
    }
}

/// The person cancelled the request on this computer (``SecurityKeyBridge/cancelPhoneCeremonies()``).
package struct CancelledOnThisComputer: Error, CustomStringConvertible {
    /// A fixed text for logs and error messages.
    package var description: String { "cancelled on this computer" }
}
