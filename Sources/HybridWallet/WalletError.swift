/// Why the wallet did not produce a presentation, or refused a credential.
///
/// The cases say *whose* input was wrong, as h11 does: ``malformedRequest(_:)`` and
/// ``unsupported(_:)`` are about the verifier's request, ``noMatchingCredential`` about what the
/// wallet holds, ``invalidCredential(_:)`` about a credential offered to ``WalletCredential``.
/// A verifier never sees the difference between ``noMatchingCredential`` and a decline: the
/// phone maps both to one wire error, so an error tells nothing about which credentials exist.
package enum WalletError: Error, Hashable, Sendable {
    /// The request data is not a valid OpenID4VP request; `reason` says how (for the phone's log).
    case malformedRequest(String)
    /// The request is valid but asks for something this wallet does not do (a signed request,
    /// an encrypted response, `transaction_data`, a DCQL feature); `feature` names it.
    case unsupported(String)
    /// No stored credential satisfies the DCQL query.
    case noMatchingCredential
    /// A credential offered to the wallet is not acceptable; `reason` says how.
    case invalidCredential(String)
    /// The wallet has no device key yet (`hybrid-authenticator wallet key` makes one).
    case noDeviceKey
    /// The random source gave no valid P-256 scalar in several attempts.
    case randomSourceFailed
}
