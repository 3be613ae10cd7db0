import Foundation
import HybridWallet

/// The phone's wallet behind ``DigitalCredentialProvider``: it answers an `openid4vp-v1-unsigned`
/// request (OpenID4VP 1.0 Appendix A) from the credentials in the store, after asking the user
/// with the verifier's origin and the exact claims requested.
///
/// What leaves the phone: nothing unless the user agrees; then only the presentation of the
/// claims the query selected, bound to the request's nonce and the origin. A decline, no
/// matching credential, no device key, an unreadable store and a malformed request are all a
/// ``DigitalCredentialOutcome/refused(_:)``, which the wire maps to one error. Every well-formed
/// request is shown to the user before it is answered, one that matches nothing too (see
/// docs/wallet.md, "Refusals").
package struct WalletProvider: DigitalCredentialProvider {
    private let source: any IdentityCredentialSource
    private let interaction: any UserInteraction
    private let now: @Sendable () -> Date

    /// A wallet over `source` that asks through `interaction` and dates key bindings with `now`.
    package init(
        source: any IdentityCredentialSource, interaction: any UserInteraction,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.source = source
        self.interaction = interaction
        self.now = now
    }

    /// Answers the first entry whose protocol this wallet speaks (`openid4vp-v1-unsigned`).
    package func present(origin: String, entries: [DigitalCredentialRequestEntry]) async -> DigitalCredentialOutcome {
        guard let entry = entries.first(where: { $0.protocolID == OpenID4VPRequest.unsignedProtocolID }) else {
            return .refused(.unsupportedProtocol)
        }
        // A malformed request says nothing about the wallet: refused at once.
        let request: OpenID4VPRequest
        do {
            request = try OpenID4VPRequest(data: entry.data)
        } catch {
            return .refused(Self.refusal(error))
        }
        // Every request that could be answered reaches the user, matched or not: a request that
        // matches nothing (another type, a `values` probe that misses, an empty or unreadable
        // wallet) is shown as asked, with nothing to share, and refused only after the user has
        // seen it, so the answer's timing does not tell the verifier what the wallet holds.
        let contents = try? await source.walletContents()
        let prepared: WalletPresenter.Prepared? = try? WalletPresenter.prepare(
            request: request, origin: origin, credentials: contents?.credentials ?? [])
        guard let prepared, let deviceKey = contents?.deviceKey else {
            let asked = ConsentRequest(origin: origin, unmatched: request.query).items.map {
                RequestedCredential(name: $0.credentialName, claims: $0.claimNames, available: false)
            }
            _ = await interaction.confirmPresentation(origin: origin, credentials: asked)
            return .refused(.noMatchingCredential)
        }
        let consent = prepared.consent
        let requested = consent.items.map { RequestedCredential(name: $0.credentialName, claims: $0.claimNames) }
        guard await interaction.confirmPresentation(origin: origin, credentials: requested) else {
            return .refused(.declined)
        }
        do {
            let data = try WalletPresenter.respond(to: prepared, deviceKey: deviceKey, now: now())
            return .credential(protocolID: entry.protocolID, data: data)
        } catch {
            return .refused(.noMatchingCredential)
        }
    }

    private static func refusal(_ error: WalletError) -> DigitalCredentialRefusal {
        switch error {
        case .malformedRequest(let reason): .malformedRequest(reason: reason)
        case .unsupported(let feature): .malformedRequest(reason: "unsupported: \(feature)")
        case .noMatchingCredential, .invalidCredential, .noDeviceKey, .randomSourceFailed: .noMatchingCredential
        }
    }
}
