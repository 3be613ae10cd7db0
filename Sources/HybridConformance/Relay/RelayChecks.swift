/// The checks of `hybrid-conformance relay`, in the order they run (protocol.md §5).
///
/// IDs are stable; docs/conformance-relay.md lists them from here.
package enum RelayChecks {
    // MARK: The upgrade (§5.2)

    package static let upgradeValid = ConformanceCheck(
        id: "relay.upgrade.valid",
        title: "/cable/new upgrades with 101, Upgrade: websocket and a correct Sec-WebSocket-Accept",
        reference: "protocol.md §5.1; RFC 6455 §4.2.2",
        source:
            "RFC 6455 §4.2.2 (the server MUST answer 101 with the computed Sec-WebSocket-Accept); PXP (formerly "
            + "CTAP 2.2 §11.5) names the wss:// tunnel service")
    package static let subprotocolEchoed = ConformanceCheck(
        id: "relay.subprotocol.echoed",
        title: "the 101 selects exactly the fido.cable subprotocol",
        reference: "protocol.md §5.2",
        source:
            "reference behaviour: the Chromium client and phone fail a connection unless the server selects "
            + "exactly fido.cable (protocol.md §5.2, from websocket_adapter.cc)")
    package static let subprotocolRequired = ConformanceCheck(
        id: "relay.subprotocol.required",
        title: "an upgrade that does not offer fido.cable is refused (Google: 400)",
        reference: "protocol.md §5.2",
        source:
            "reference behaviour: Google's tunnel service answers 400 (protocol.md §5.2, observed); a relay that "
            + "upgrades without fido.cable gives Chromium a connection it fails")
    package static let methodGetOnly = ConformanceCheck(
        id: "relay.method.get-only",
        title: "an upgrade request with POST, PUT or DELETE is refused",
        reference: "protocol.md §5.1; RFC 6455 §4.1",
        source:
            "RFC 6455 §4.1 (the opening handshake MUST be a GET); RFC 6455 §4.2.1 lets a server answer anything "
            + "else with an error")
    package static let routingIDHeader = ConformanceCheck(
        id: "relay.routing-id.header",
        title: "the /cable/new 101 carries exactly one X-caBLE-Routing-ID of 6 hex digits (3 bytes)",
        reference: "protocol.md §5.2",
        source:
            "reference behaviour: the Chromium phone requires exactly one X-caBLE-Routing-ID of 3 bytes and fails "
            + "without it (protocol.md §5.2, from v2_authenticator.cc)")
    package static let routingIDUpperCase = ConformanceCheck(
        id: "relay.routing-id.upper-case",
        title: "the routing ID is written in upper-case hex, as Chromium writes it",
        reference: "protocol.md §5.1",
        source:
            "advice: the header is matched case-insensitively (protocol.md §5.2); upper case is what Chromium "
            + "writes", required: false)

    // MARK: Paths and tunnel IDs (§5.1, §5.4)

    package static let newDuplicate = ConformanceCheck(
        id: "relay.new.duplicate",
        title: "a second /cable/new with a pending tunnel's ID is refused (not upgraded)",
        reference: "protocol.md §5.4",
        source:
            "reference behaviour: relays join sockets by (routing ID, tunnel ID) of one pending tunnel "
            + "(protocol.md §5.4, Chromium's test tunnel server); security: accepting a second /cable/new with a "
            + "pending tunnel ID would let another party take the tunnel")
    package static let connectUnknownRoutingID = ConformanceCheck(
        id: "relay.connect.unknown-routing-id",
        title: "/cable/connect with a routing ID the relay did not hand out is refused (not upgraded)",
        reference: "protocol.md §5.4",
        source:
            "reference behaviour: a /cable/connect joins only a pending tunnel (protocol.md §5.4); an upgrade to "
            + "nothing leaves the client waiting for a phone that is not there")
    package static let connectUnknownTunnelID = ConformanceCheck(
        id: "relay.connect.unknown-tunnel-id",
        title: "/cable/connect with an unknown tunnel ID is refused (not upgraded)",
        reference: "protocol.md §5.4",
        source:
            "reference behaviour: a /cable/connect joins only a pending tunnel (protocol.md §5.4); an upgrade to "
            + "nothing leaves the client waiting for a phone that is not there")
    package static let newDuplicateStatus = ConformanceCheck(
        id: "relay.new.duplicate-409",
        title: "that refusal is 409 Conflict, as our relay answers",
        reference: "protocol.md §5.4",
        source:
            "advice: no source fixes the status; 409 is our relay's answer (RFC 9110 §15.5.10 fits it), and "
            + "clients and phones only see that the upgrade failed", required: false)
    package static let connectUnknownRoutingIDStatus = ConformanceCheck(
        id: "relay.connect.unknown-routing-id-404",
        title: "that refusal is 404 Not Found, as our relay answers",
        reference: "protocol.md §5.4",
        source:
            "advice: no source fixes the status; 404 is our relay's answer, and the Chromium client treats any "
            + "failure but 410 on /cable/contact alike (protocol.md §5.2)", required: false)
    package static let connectUnknownTunnelIDStatus = ConformanceCheck(
        id: "relay.connect.unknown-tunnel-id-404",
        title: "that refusal is 404 Not Found, as our relay answers",
        reference: "protocol.md §5.4",
        source:
            "advice: no source fixes the status; 404 is our relay's answer, and the Chromium client treats any "
            + "failure but 410 on /cable/contact alike (protocol.md §5.2)", required: false)
    package static let connectPairs = ConformanceCheck(
        id: "relay.connect.pairs",
        title: "/cable/connect/<routing ID>/<tunnel ID> of a pending tunnel upgrades with fido.cable",
        reference: "protocol.md §5.1, §5.4",
        source:
            "PXP (formerly CTAP 2.2 §11.5.1): the client reaches the phone at /cable/connect/<routing ID>/<tunnel "
            + "ID>; reference behaviour of Google's tunnel service and Chromium's test server (protocol.md §5.1, "
            + "§5.4)")
    package static let connectTaken = ConformanceCheck(
        id: "relay.connect.taken",
        title: "a second /cable/connect to a tunnel that is already paired is refused",
        reference: "protocol.md §5.4",
        source:
            "security: a third party that learned the tunnel ID must not join a paired tunnel; Google's tunnel "
            + "service and Chromium's test server pair one /cable/connect (protocol.md §5.4)")
    package static let pathLowerCase = ConformanceCheck(
        id: "relay.path.lower-case",
        title: "/cable/new and /cable/connect with lower-case hex pair like upper case",
        reference: "protocol.md §5.1",
        source:
            "advice: Google accepts lower-case hex (protocol.md §5.1, observed); Chromium writes upper case",
        required: false)
    package static let pathMalformed = ConformanceCheck(
        id: "relay.path.malformed",
        title: "malformed tunnel paths (lengths, non-hex, extra or missing segments) are refused",
        reference: "protocol.md §5.1",
        source:
            "reference behaviour: tunnel paths are fixed-length hex (protocol.md §5.1, Chromium's tunnel URL "
            + "builders); a relay that upgrades a malformed path joins sockets that name no tunnel")

    // MARK: Forwarding (§5.4)

    package static let forwardBeforePairing = ConformanceCheck(
        id: "relay.forward.before-pairing",
        title: "messages sent on /cable/new before the peer joined reach it, in order, once it joins",
        reference: "protocol.md §5.4, §10.8 item 5",
        source:
            "reference behaviour: the client speaks first and may do so before the phone's side is read; "
            + "webauthn-rs's relay queues 16 messages and Chromium's test server queues until the peer joins "
            + "(protocol.md §5.4, §10.8)")
    package static let forwardClientToPhone = ConformanceCheck(
        id: "relay.forward.client-to-phone",
        title: "binary messages from /cable/connect reach /cable/new verbatim and in order",
        reference: "protocol.md §5.4",
        source:
            "PXP (formerly CTAP 2.2 §11.5): the tunnel service carries the encrypted messages unchanged; reference "
            + "behaviour of every relay (protocol.md §5.4)")
    package static let forwardPhoneToClient = ConformanceCheck(
        id: "relay.forward.phone-to-client",
        title: "binary messages from /cable/new reach /cable/connect verbatim and in order",
        reference: "protocol.md §5.4",
        source:
            "PXP (formerly CTAP 2.2 §11.5): the tunnel service carries the encrypted messages unchanged; reference "
            + "behaviour of every relay (protocol.md §5.4)")
    package static let forwardMaxSize = ConformanceCheck(
        id: "relay.forward.max-size",
        title: "a 1 MiB (2^20-byte) message is forwarded intact in both directions",
        reference: "protocol.md §5.4",
        source:
            "reference behaviour: the Chromium client accepts messages up to 1 MiB (protocol.md §5.4, from "
            + "websocket_adapter.cc); digital-credential requests can be that large (§7.8)")

    // MARK: Close (§5.4)

    package static let closeEchoed = ConformanceCheck(
        id: "relay.close.echoed",
        title: "the relay answers a side's close frame with a close frame",
        reference: "protocol.md §5.4; RFC 6455 §5.5.1",
        source:
            "RFC 6455 §5.5.1 (an endpoint that receives a Close frame MUST send a Close frame in response)")
    package static let closePropagated = ConformanceCheck(
        id: "relay.close.propagated",
        title: "when one side sends close, the other side is closed with 1000, 1001 or 4000-4999",
        reference: "protocol.md §5.4; RFC 6455 §7.4",
        source:
            "reference behaviour: the Chromium client treats a closed socket as the end of the session "
            + "(protocol.md §5.4, §7.5); webauthn-rs's relay closes the other side; close codes: RFC 6455 §7.4")
    package static let closeDropPropagated = ConformanceCheck(
        id: "relay.close.drop-propagated",
        title: "when one side's TCP connection drops, the other side is closed with 1000, 1001 or 4000-4999",
        reference: "protocol.md §5.4; RFC 6455 §7.4",
        source:
            "reference behaviour: the Chromium client treats a closed socket as the end of the session "
            + "(protocol.md §5.4, §7.5); webauthn-rs's relay closes the other side; close codes: RFC 6455 §7.4")

    // MARK: TLS (wss:// only)

    package static let tlsVersion = ConformanceCheck(
        id: "relay.tls.version",
        title: "wss:// negotiates TLS 1.2 or later",
        reference: "protocol.md §5.1 (wss://); RFC 8996",
        source:
            "RFC 8996 (TLS 1.0 and 1.1 MUST NOT be used)")
    package static let tlsOldRefused = ConformanceCheck(
        id: "relay.tls.old-refused",
        title: "a client offering only TLS 1.0/1.1 is refused",
        reference: "protocol.md §5.1 (wss://); RFC 8996",
        source:
            "advice: RFC 8996 forbids negotiating TLS 1.0/1.1; a relay that still accepts them is outdated, not "
            + "incompatible", required: false)

    // MARK: Timeouts (--slow)

    package static let pendingKept = ConformanceCheck(
        id: "relay.slow.pending-kept",
        title: "a pending /cable/new tunnel stays joinable for at least the minimum (Google: about 30 s)",
        reference: "protocol.md §5.4",
        source:
            "reference behaviour: the Chromium phone opens /cable/new before the user's client has seen the "
            + "advert; Google keeps a pending tunnel about 30 s (protocol.md §5.4, observed)")
    package static let pendingExpires = ConformanceCheck(
        id: "relay.slow.pending-expires",
        title: "a pending tunnel nobody joins is closed within the maximum (webauthn-rs: 120 s TTL)",
        reference: "protocol.md §5.4",
        source:
            "advice: resource limit; webauthn-rs's TTL is 120 s (protocol.md §5.4)", required: false)
    package static let pendingExpiredRefused = ConformanceCheck(
        id: "relay.slow.pending-expired-refused",
        title: "/cable/connect to an expired tunnel is refused (Google: 418)",
        reference: "protocol.md §5.4",
        source:
            "reference behaviour: Google answers 418 after about 30 s (protocol.md §5.4, observed); an expired "
            + "tunnel has no phone to join")
    package static let idleKept = ConformanceCheck(
        id: "relay.slow.idle-kept",
        title: "a paired tunnel with no traffic stays open for at least the minimum (late update 10 s after shutdown)",
        reference: "protocol.md §5.4, §7.5",
        source:
            "reference behaviour: Chromium's LateLinkingDevice sends its update 10 s after shutdown and the client "
            + "waits up to 3 minutes for it (protocol.md §5.4, §7.5)")
    package static let idleExpires = ConformanceCheck(
        id: "relay.slow.idle-expires",
        title: "a paired tunnel with no traffic is closed within the maximum (Google: about 30 s)",
        reference: "protocol.md §5.4",
        source:
            "advice: resource limit; Google closes about 30 s after the client connects (protocol.md §5.4, "
            + "observed)", required: false)

    /// Every check, in the order a run reports them.
    package static let all: [ConformanceCheck] = [
        upgradeValid, subprotocolEchoed, routingIDHeader, routingIDUpperCase, subprotocolRequired, methodGetOnly,
        newDuplicate, newDuplicateStatus, connectUnknownRoutingID, connectUnknownRoutingIDStatus,
        connectUnknownTunnelID, connectUnknownTunnelIDStatus, connectPairs, connectTaken, pathLowerCase,
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
