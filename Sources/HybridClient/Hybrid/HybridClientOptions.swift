import HybridBluetooth
import HybridCore

/// How ``HybridClientRunner`` reaches the phone.
public struct HybridClientOptions: Sendable {
    /// Where to scan for the phone's advert: `.hci`, `.bluez`, or `.simulated` for tests and the demo.
    public var bluetooth: BLEBackend
    /// Limit for the whole ceremony, from the QR code to the answer.
    public var timeout: Duration
    /// PEM file of extra CA certificates trusted for `wss://` tunnel servers.
    public var additionalCAFile: String?
    /// Your own relay for a tunnel domain: when the phone's advert names the domain, the tunnel is
    /// opened at this origin (e.g. `wss://relay.example.com`, or `ws://127.0.0.1:8080` for a relay
    /// on this machine) instead of the domain's host. For a phone that uses that relay too (such as
    /// `hybrid-authenticator --relay-url`). Empty by default: an advert's domain then reaches its
    /// own host over `wss://` (IDs 0 and 1 assigned, 256 and up hashed; protocol.md §4).
    public var tunnelServers: [TunnelDomainID: TunnelServerOrigin]
    /// How long the tunnel stays open after the shutdown for a late update, unless the phone
    /// closes it first (protocol.md §7.5); zero closes it at once. Applies to
    /// ``HybridClientRunner/run(_:events:onResponse:)``, after the response is delivered.
    public var linger: Duration
    /// The clock ``timeout`` and ``linger`` run on; tests replace it to time out without waiting.
    var clock: any Clock<Duration> = ContinuousClock()
    /// Which data channel the session may use (`--channel`, protocol.md §3.4): with `.auto` (the
    /// default) the QR code offers BLE L2CAP when the adapter can, and a failed L2CAP attempt falls
    /// back to the tunnel.
    package var channel: DataChannelMode = .auto
    /// How long an L2CAP attempt may take, from the matched advert to an open channel, before the
    /// tunnel is used instead (``DataChannelSelector``).
    package var l2capTimeout: Duration = Self.defaultL2CAPTimeout
    /// **Test only.** Stands in for the adapter's L2CAP side (capabilities and connect); `nil` uses
    /// ``bluetooth``'s.
    package var l2capOverride: L2CAPClientSupport?

    /// The default timeout: two minutes, like a browser's WebAuthn default.
    public static let defaultTimeout: Duration = .seconds(120)
    /// The default linger: Chromium's client waits up to three minutes after its shutdown (§7.5).
    public static let defaultLinger: Duration = .seconds(180)

    /// The default L2CAP attempt: an LE connection and a CoC take well under a second (protocol.md
    /// §10.9), scanning for the phone's connectable advert a few more.
    package static let defaultL2CAPTimeout: Duration = .seconds(8)

    /// Options; the defaults are what a browser does (timeouts, linger, each tunnel domain's own host).
    public init(
        bluetooth: BLEBackend,
        timeout: Duration = Self.defaultTimeout,
        linger: Duration = Self.defaultLinger,
        additionalCAFile: String? = nil,
        tunnelServers: [TunnelDomainID: TunnelServerOrigin] = [:]
    ) {
        self.bluetooth = bluetooth
        self.timeout = timeout
        self.linger = linger
        self.additionalCAFile = additionalCAFile
        self.tunnelServers = tunnelServers
    }

    /// The adapter's L2CAP side: ``l2capOverride``, else ``bluetooth``'s.
    var l2cap: L2CAPClientSupport {
        if let l2capOverride { return l2capOverride }
        let backend = bluetooth
        return L2CAPClientSupport(
            capabilities: { await backend.l2capCapabilities() },
            connect: { advert, psm, timeout in try await backend.connectL2CAP(to: advert, psm: psm, timeout: timeout) })
    }

    /// The URL to open for an advert's `/cable/connect` URL: on the chosen tunnel server for its
    /// domain, if any, else the URL itself.
    func tunnelURL(for url: TunnelURL, domain: TunnelDomainID) -> TunnelURL {
        guard let origin = tunnelServers[domain] else { return url }
        return TunnelURL(origin: origin, path: url.path)
    }
}
