import HybridCore
import Logging

/// What every serve loop of one run shares: the session as the advert left it, the claim, the
/// advertiser, the engine and the run's observers.
struct ServeContext: Sendable {
    let session: AuthenticatorSession
    let claim: ClientChannelClaim
    let advertising: AdvertisingControl
    let authenticator: CTAPAuthenticator
    /// The wallet for a JSON (digital-credential) request, if the run offers `"dc"`.
    let digitalCredentials: (any DigitalCredentialProvider)?
    let emit: @Sendable (AuthenticatorEvent) -> Void
    /// Yields once, when the client's first message arrives (ends the no-client watchdog).
    let clientConnected: AsyncStream<Void>.Continuation
    let tap: any AuthenticatorTap
    /// ``AuthenticatorRunner/clock``.
    let clock: any Clock<Duration>
    let logger: Logger

    /// A serve loop of its own on `channel`.
    func loop<Channel: ClientChannel>(on channel: Channel) -> ClientServeLoop<Channel> {
        ClientServeLoop(channel: channel, context: self)
    }
}
