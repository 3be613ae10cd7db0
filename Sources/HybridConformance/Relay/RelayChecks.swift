/// The checks of `hybrid-conformance relay`, in the order they run (protocol.md §5).
///
/// IDs are stable; docs/conformance-relay.md lists them from here.
package enum RelayChecks {
    // MARK: The upgrade (§5.2)

    package static let upgradeValid = ConformanceCheck(
        id: "relay.upgrade.valid",
        title: "/cable/new upgrades with 101, Upgrade: websocket and a correct Sec-WebSocket-Accept",
        reference: "protocol.md §5.1; RFC 6455 §4.2.2")
    package static let subprotocolEchoed = ConformanceCheck(
        id: "relay.subprotocol.echoed",
        title: "the 101 selects exactly the fido.cable subprotocol",
        reference: "protocol.md §5.2")
    package static let subprotocolRequired = ConformanceCheck(
        id: "relay.subprotocol.required",
        title: "an upgrade that does not offer fido.cable is refused (Google: 400)",
        reference: "protocol.md §5.2")
    package static let methodGetOnly = ConformanceCheck(
        id: "relay.method.get-only",
        title: "an upgrade request with POST, PUT or DELETE is refused",
        reference: "protocol.md §5.1; RFC 6455 §4.1")
    package static let routingIDHeader = ConformanceCheck(
        id: "relay.routing-id.header",
        title: "the /cable/new 101 carries exactly one X-caBLE-Routing-ID of 6 hex digits (3 bytes)",
        reference: "protocol.md §5.2")
    package static let routingIDUpperCase = ConformanceCheck(
        id: "relay.routing-id.upper-case",
        title: "the routing ID is written in upper-case hex, as Chromium writes it",
        reference: "protocol.md §5.1", required: false)

    // MARK: Paths and tunnel IDs (§5.1, §5.4)

    package static let newDuplicate = ConformanceCheck(
        id: "relay.new.duplicate",
        title: "a second /cable/new with a pending tunnel's ID gets 409",
        reference: "protocol.md §5.4")
    package static let connectUnknownRoutingID = ConformanceCheck(
        id: "relay.connect.unknown-routing-id",
        title: "/cable/connect with a routing ID the relay did not hand out gets 404",
        reference: "protocol.md §5.4")
    package static let connectUnknownTunnelID = ConformanceCheck(
        id: "relay.connect.unknown-tunnel-id",
        title: "/cable/connect with an unknown tunnel ID gets 404",
        reference: "protocol.md §5.4")
    package static let connectPairs = ConformanceCheck(
        id: "relay.connect.pairs",
        title: "/cable/connect/<routing ID>/<tunnel ID> of a pending tunnel upgrades with fido.cable",
        reference: "protocol.md §5.1, §5.4")
    package static let connectTaken = ConformanceCheck(
        id: "relay.connect.taken",
        title: "a second /cable/connect to a tunnel that is already paired is refused",
        reference: "protocol.md §5.4")
    package static let pathLowerCase = ConformanceCheck(
        id: "relay.path.lower-case",
        title: "/cable/new and /cable/connect with lower-case hex pair like upper case",
        reference: "protocol.md §5.1", required: false)
    package static let pathMalformed = ConformanceCheck(
        id: "relay.path.malformed",
        title: "malformed tunnel paths (lengths, non-hex, extra or missing segments) are refused",
        reference: "protocol.md §5.1")

    // MARK: Forwarding (§5.4)

    package static let forwardBeforePairing = ConformanceCheck(
        id: "relay.forward.before-pairing",
        title: "messages sent on /cable/new before the peer joined reach it, in order, once it joins",
        reference: "protocol.md §5.4, §10.8 item 5")
    package static let forwardClientToPhone = ConformanceCheck(
        id: "relay.forward.client-to-phone",
        title: "binary messages from /cable/connect reach /cable/new verbatim and in order",
        reference: "protocol.md §5.4")
    package static let forwardPhoneToClient = ConformanceCheck(
        id: "relay.forward.phone-to-client",
        title: "binary messages from /cable/new reach /cable/connect verbatim and in order",
        reference: "protocol.md §5.4")
    package static let forwardMaxSize = ConformanceCheck(
        id: "relay.forward.max-size",
        title: "a 1 MiB (2^20-byte) message is forwarded intact in both directions",
        reference: "protocol.md §5.4")

    // MARK: Close (§5.4)

    package static let closeEchoed = ConformanceCheck(
        id: "relay.close.echoed",
        title: "the relay answers a side's close frame with a close frame",
        reference: "protocol.md §5.4; RFC 6455 §5.5.1")
    package static let closePropagated = ConformanceCheck(
        id: "relay.close.propagated",
        title: "when one side sends close, the other side is closed with 1000, 1001 or 4000-4999",
        reference: "protocol.md §5.4; RFC 6455 §7.4")
    package static let closeDropPropagated = ConformanceCheck(
        id: "relay.close.drop-propagated",
        title: "when one side's TCP connection drops, the other side is closed with 1000, 1001 or 4000-4999",
        reference: "protocol.md §5.4; RFC 6455 §7.4")

    // MARK: TLS (wss:// only)

    package static let tlsVersion = ConformanceCheck(
        id: "relay.tls.version",
        title: "wss:// negotiates TLS 1.2 or later",
        reference: "protocol.md §5.1 (wss://); RFC 8996")
    package static let tlsOldRefused = ConformanceCheck(
        id: "relay.tls.old-refused",
        title: "a client offering only TLS 1.0/1.1 is refused",
        reference: "protocol.md §5.1 (wss://); RFC 8996", required: false)

    // MARK: Timeouts (--slow)

    package static let pendingKept = ConformanceCheck(
        id: "relay.slow.pending-kept",
        title: "a pending /cable/new tunnel stays joinable for at least the minimum (Google: about 30 s)",
        reference: "protocol.md §5.4")
    package static let pendingExpires = ConformanceCheck(
        id: "relay.slow.pending-expires",
        title: "a pending tunnel nobody joins is closed within the maximum (webauthn-rs: 120 s TTL)",
        reference: "protocol.md §5.4", required: false)
    package static let pendingExpiredRefused = ConformanceCheck(
        id: "relay.slow.pending-expired-refused",
        title: "/cable/connect to an expired tunnel is refused (Google: 418)",
        reference: "protocol.md §5.4")
    package static let idleKept = ConformanceCheck(
        id: "relay.slow.idle-kept",
        title: "a paired tunnel with no traffic stays open for at least the minimum (late update 10 s after shutdown)",
        reference: "protocol.md §5.4, §7.5")
    package static let idleExpires = ConformanceCheck(
        id: "relay.slow.idle-expires",
        title: "a paired tunnel with no traffic is closed within the maximum (Google: about 30 s)",
        reference: "protocol.md §5.4", required: false)

    /// Every check, in the order a run reports them.
    package static let all: [ConformanceCheck] = [
        upgradeValid, subprotocolEchoed, routingIDHeader, routingIDUpperCase, subprotocolRequired, methodGetOnly,
        newDuplicate, connectUnknownRoutingID, connectUnknownTunnelID, connectPairs, connectTaken, pathLowerCase,
        pathMalformed, forwardBeforePairing, forwardClientToPhone, forwardPhoneToClient, forwardMaxSize,
        closeEchoed, closePropagated, closeDropPropagated, tlsVersion, tlsOldRefused,
        pendingKept, pendingExpires, pendingExpiredRefused, idleKept, idleExpires,
    ]

    /// The checks that run only with `--slow`.
    package static let slow: [ConformanceCheck] = [
        pendingKept, pendingExpires, pendingExpiredRefused, idleKept, idleExpires,
    ]

    /// The checks that run only against `wss://`.
    package static let tls: [ConformanceCheck] = [tlsVersion, tlsOldRefused]
}
