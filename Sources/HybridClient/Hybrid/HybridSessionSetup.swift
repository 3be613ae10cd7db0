import HybridCore

/// One session of ``HybridClientRunner`` beyond its ``HybridClientOptions``: the QR code's keys
/// and request-type hint, how long the tunnel lingers after the reply, and, for a conformance
/// client only, how the session departs from a browser's and who watches it.
package struct HybridSessionSetup: Sendable {
    /// The QR code's request-type hint (key 5).
    package var requestType: HybridRequestType
    /// The keys behind the QR code; fresh unless a conformance client needs them to open the
    /// phone's messages.
    package var keys: HybridClientRunner.Keys
    /// How long the tunnel stays open after the shutdown for a late update (§7.5); zero closes it
    /// at once.
    package var linger: Duration
    /// How the session departs from a browser's; ``Deviations/none`` but in a conformance client.
    package var deviations: Deviations = .none
    /// Who watches the session; ``UnobservedSession`` but in a conformance client.
    package var observer: any HybridSessionObserver = UnobservedSession()

    /// A browser's session: fresh keys.
    package init(
        requestType: HybridRequestType, keys: HybridClientRunner.Keys = HybridClientRunner.freshKeys(),
        linger: Duration = .zero
    ) {
        self.requestType = requestType
        self.keys = keys
        self.linger = linger
    }

    /// How a conformance client's session departs from a browser's, to probe a phone
    /// (`hybrid-conformance client`).
    package struct Deviations: Sendable {
        /// Leave the timestamp (QR key 3) out of the QR code, as an old client would; a phone
        /// should refuse such a code as too old.
        package var omitsQRTimestamp = false
        /// A second request sent in the same session after the first reply instead of the
        /// shutdown (``ClientSession/followUpRequest``); the reply passed on is then the last one.
        package var followUpRequest: HybridPayload?
        /// Open an advert whose suffix the QR code did not ask for, so that the phone can be
        /// judged for it (protocol.md §3.4), instead of missing it; such a suffix is still never
        /// used.
        package var opensUnofferedAdvertSuffix = false
        /// Empty update messages to send between the post-handshake message and the request
        /// (``ClientSession/emptyUpdatesBeforeRequest``), so that the request travels with sequence
        /// number `updatesBeforeRequest`: how the judge reaches the crypter's limit (§7.1).
        package var updatesBeforeRequest: UInt32 = 0
        /// Seal the request past the crypter's limit
        /// (``ClientSession/sealsRequestIgnoringSequenceLimit``).
        package var sealsRequestIgnoringSequenceLimit = false

        /// A browser's session.
        package static let none = Deviations()
    }
}
