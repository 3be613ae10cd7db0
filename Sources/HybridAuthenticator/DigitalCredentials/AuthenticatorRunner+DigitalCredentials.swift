import HybridCore

extension AuthenticatorRunner {
    /// The post-handshake features (key 3) for a QR code: `["dc"]` for a presentation request
    /// (`dcp`) when a wallet is set, as Chromium's digital-identity phone sends
    /// (`TransactDigitalIdentityFromQRCodeForTesting` in `v2_authenticator.cc`); `["ctap"]` otherwise.
    /// One QR code buys one request, so a `dcp` session offers only what it is for.
    func offeredFeatures(for payload: QRCodePayload) -> [HybridFeature] {
        guard payload.requestType == .digitalCredentialPresentation, options.digitalCredentials != nil else {
            return [.ctap]
        }
        return [.digitalCredentials]
    }
}
