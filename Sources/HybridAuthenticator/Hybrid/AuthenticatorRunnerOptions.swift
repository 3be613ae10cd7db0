import Foundation
import HybridBluetooth
import HybridCore

extension AuthenticatorRunner {
    /// Everything a run can be told besides the QR code. The CLI builds it from its flags; tests
    /// build it directly.
    public struct Options: Sendable {
        /// The tunnel-server domain to use and advertise: 0 (Google) by default, 1 (Apple), or a
        /// hashed domain ≥ 256. An assigned ID must be below the QR code's key 2.
        public var domainID: UInt16 = 0
        /// Connect here instead of the domain's host (e.g. `ws://127.0.0.1:8080`); the advert still
        /// names ``domainID``.
        public var tunnelOrigin: TunnelServerOrigin?
        /// Where the advert goes.
        public var ble: BLEBackend
        /// PEM file of extra CA certificates for `wss://`.
        public var caFile: String?
        /// Offer the BLE L2CAP channel when the QR code asks for it (CTAP 2.3 key 6) and the
        /// Bluetooth backend can serve it (raw HCI with extended advertising): listen on a PSM and
        /// advertise it. On by default, as a phone with L2CAP would.
        public var offersL2CAP = true
        /// Time allowed for the TCP connection and, again, for the WebSocket upgrade.
        public var tunnelConnectTimeout: Duration = .seconds(10)
        /// How long to advertise waiting for the client before giving up.
        public var clientWaitTimeout: Duration = .seconds(120)
        /// Limit for the whole run, `nil` for none. User prompts count, and a prompt blocked on
        /// the terminal delays the stop until it returns.
        public var overallTimeout: Duration? = .seconds(300)
        /// Largest distance between now and the QR timestamp (key 3); `nil` skips the check (and
        /// then a missing timestamp is accepted too).
        public var maxQRCodeAge: Duration? = .seconds(600)
        /// Accept a QR code without a timestamp although ``maxQRCodeAge`` is set. Off by default:
        /// an undated code could be any age (a photo, an old screenshot), so it counts as too old.
        /// protocol.md §1.3 makes key 3 optional and Chromium's parser does not read it, but every
        /// current client sends it (Chromium always, also Safari, libwebauthn, webauthn-rs); turn
        /// this on only for an old client that omits it.
        public var acceptsQRCodeWithoutTimestamp = false
        /// The clock for the staleness check.
        public var now: @Sendable () -> Date = { Date() }
        /// The wallet that answers digital-credential requests. With one, a QR code of request type
        /// `dcp` gets the post-handshake features `["dc"]` and its one JSON request (message type 03)
        /// goes to it (protocol.md §7.8); without one, such a QR code is served like any other (features
        /// `["ctap"]`: a browser then gives up, finding no `"dc"`).
        package var digitalCredentials: (any DigitalCredentialProvider)?

        /// Options with every default except the BLE backend.
        public init(ble: BLEBackend) {
            self.ble = ble
        }
    }
}
