import Foundation
import HybridCore

/// A scanned QR code that passed the runner's checks, with the tunnel domain to use.
package struct CheckedQRCode: Sendable {
    /// The parsed payload.
    package let payload: QRCodePayload
    /// The tunnel-server domain this run advertises.
    package let domainID: TunnelDomainID
}

extension AuthenticatorRunner {
    /// Parses `qrCode` (surrounding whitespace ignored) and checks it for a run with `options`:
    /// a valid `FIDO:/` payload (protocol.md §1), a timestamp within ``Options/maxQRCodeAge`` of
    /// ``Options/now`` (a code without one is refused unless
    /// ``Options/acceptsQRCodeWithoutTimestamp``), and a domain ID the client can use: 0–1 below QR key 2
    /// (key 2 absent counts as 1, the one domain every client knows), or hashed (≥ 256).
    ///
    /// - Throws: ``AuthenticatorRunnerError/invalidQRCode(_:)``,
    ///   ``AuthenticatorRunnerError/staleQRCode(secondsOff:limit:)``,
    ///   ``AuthenticatorRunnerError/undatedQRCode``,
    ///   ``AuthenticatorRunnerError/invalidDomainID(_:)`` or
    ///   ``AuthenticatorRunnerError/domainNotKnownToClient(domainID:knownDomains:)``.
    package static func check(qrCode: String, options: Options) throws(AuthenticatorRunnerError) -> CheckedQRCode {
        let text = qrCode.trimmingCharacters(in: .whitespacesAndNewlines)
        let payload: QRCodePayload
        do {
            payload = try QRCodePayload(url: text)
        } catch {
            throw .invalidQRCode(error)
        }
        if options.maxQRCodeAge != nil, payload.timestamp == nil, !options.acceptsQRCodeWithoutTimestamp {
            throw .undatedQRCode
        }
        if let limit = options.maxQRCodeAge, let timestamp = payload.timestamp {
            let now = Int64(options.now().timeIntervalSince1970.rounded(.down))
            let (secondsOff, overflow) = now.subtractingReportingOverflow(timestamp)
            if overflow || secondsOff.magnitude > UInt64(max(0, limit.components.seconds)) {
                throw .staleQRCode(secondsOff: overflow ? (timestamp < 0 ? .max : .min) : secondsOff, limit: limit)
            }
        }
        guard let domainID = TunnelDomainID(rawValue: options.domainID) else {
            throw .invalidDomainID(options.domainID)
        }
        if !domainID.isHashed {
            let known = payload.knownDomains ?? 1
            guard Int64(domainID.rawValue) < known else {
                throw .domainNotKnownToClient(domainID: domainID.rawValue, knownDomains: known)
            }
        }
        return CheckedQRCode(payload: payload, domainID: domainID)
    }
}
