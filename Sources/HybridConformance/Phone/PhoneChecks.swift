/// The checks of `hybrid-conformance phone`: the tool acts as a strict phone and judges the client
/// under test (a browser, libwebauthn, hybrid-client) by its QR code and every message it sends.
package enum PhoneChecks {
    // MARK: The QR code

    package static let qrFormat = ConformanceCheck(
        id: "phone.qr.format", title: "the QR text is FIDO:/ followed by a valid digit encoding",
        reference: "protocol.md §1.1, §1.2")
    package static let qrCanonicalCBOR = ConformanceCheck(
        id: "phone.qr.canonical-cbor", title: "the QR payload is one canonical CBOR map with unsigned integer keys",
        reference: "protocol.md §0.2, §1.3")
    package static let qrRequiredKeys = ConformanceCheck(
        id: "phone.qr.required-keys",
        title: "key 0 is a 33-byte compressed P-256 point and key 1 a 16-byte secret",
        reference: "protocol.md §1.3")
    package static let qrKeyTypes = ConformanceCheck(
        id: "phone.qr.key-types", title: "keys 2 and 3 are unsigned integers, 4 a bool and 5 a text string if present",
        reference: "protocol.md §1.3")
    package static let qrKey4Present = ConformanceCheck(
        id: "phone.qr.key4-present",
        title: "key 4 (linking) is present, so that intermediate Android phones use revision 1",
        reference: "protocol.md §10.2")
    package static let qrKey4NoLinking = ConformanceCheck(
        id: "phone.qr.key4-false",
        title: "key 4 is false: WebAuthn clients no longer ask for linking (Chrome ≥ M136, Safari)",
        reference: "protocol.md §10.6", required: false)
    package static let qrKey2Domains = ConformanceCheck(
        id: "phone.qr.key2-domains",
        title: "key 2 announces both assigned tunnel domains (2), which picks the new crypter",
        reference: "protocol.md §4.1, §10.3", required: false)
    package static let qrKey6Type = ConformanceCheck(
        id: "phone.qr.key6-type", title: "key 6, if present, is an array of unsigned channel IDs (CTAP 2.3)",
        reference: "protocol.md §1.3")
    package static let qrKey6OnlyWithL2CAP = ConformanceCheck(
        id: "phone.qr.key6-only-with-l2cap",
        title: "key 6 is omitted unless it offers BLE L2CAP (Play Services before CTAP 2.3 rejects an array)",
        reference: "protocol.md §1.3, §10.1", required: false)
    package static let qrRequestType = ConformanceCheck(
        id: "phone.qr.request-type", title: "key 5 is \"ga\", \"mc\", \"dcp\" or \"dci\"",
        reference: "protocol.md §1.3", required: false)
    package static let qrTimestamp = ConformanceCheck(
        id: "phone.qr.timestamp", title: "key 3 is the current time (within 10 minutes)",
        reference: "protocol.md §1.3", required: false)

    // MARK: The handshake

    package static let handshakeLayout = ConformanceCheck(
        id: "phone.handshake.layout",
        title: "msg1 is 81 bytes: an uncompressed P-256 point (65) and the 16-byte tag of an empty payload",
        reference: "protocol.md §6.2")
    package static let handshakeAccepted = ConformanceCheck(
        id: "phone.handshake.keys", title: "msg1 is a KNpsk0 message under the QR identity key and the advert's PSK",
        reference: "protocol.md §2, §6.2")

    // MARK: Every client message after the handshake

    package static let transportDecrypts = ConformanceCheck(
        id: "phone.transport.decrypts",
        title: "every message decrypts with the next sequence number and the phone's construction",
        reference: "protocol.md §7.1")
    package static let transportPadding = ConformanceCheck(
        id: "phone.transport.padding",
        title: "every plaintext is padded with zeros to the smallest multiple of 32, then the zero count",
        reference: "protocol.md §7.1")
    package static let frameType = ConformanceCheck(
        id: "phone.frame.type", title: "every message starts with a type byte the client may send (00, 01 or 03)",
        reference: "protocol.md §7.3")
    package static let ctapCanonicalCBOR = ConformanceCheck(
        id: "phone.ctap.canonical-cbor", title: "the CTAP request is a command byte and one canonical CBOR map",
        reference: "protocol.md §0.2, §8.1")
    package static let ctapCommand = ConformanceCheck(
        id: "phone.ctap.command", title: "the request is makeCredential (01) or getAssertion (02)",
        reference: "protocol.md §8.1")
    package static let ctapMatchesHint = ConformanceCheck(
        id: "phone.ctap.matches-hint", title: "the request matches the QR code's request type (key 5)",
        reference: "protocol.md §1.3", required: false)
    package static let noSilentPreflight = ConformanceCheck(
        id: "phone.ctap.no-silent-preflight", title: "no getAssertion with up = false (a silent preflight)",
        reference: "protocol.md §8.1")
    package static let oneRequest = ConformanceCheck(
        id: "phone.session.one-request", title: "the client sends exactly one request per session",
        reference: "protocol.md §7.5")
    package static let shutdownAfterReply = ConformanceCheck(
        id: "phone.session.shutdown",
        title: "after the reply the client sends shutdown (00) and then nothing more",
        reference: "protocol.md §7.3, §7.5")

    // MARK: The JSON (digital-credential) path

    package static let dcFeatures = ConformanceCheck(
        id: "phone.dc.features",
        title: "the client sends JSON (03) only to a phone whose post-handshake features include \"dc\", "
            + "and CTAP (01) only to one whose features include \"ctap\"",
        reference: "protocol.md §7.2, §7.8")
    package static let dcJSON = ConformanceCheck(
        id: "phone.dc.json",
        title: "the JSON request is one strict UTF-8 JSON document (RFC 8259: no duplicate names, no lone "
            + "surrogates) within 1 MiB − 64 bytes and 32 levels",
        reference: "protocol.md §7.8")
    package static let dcEnvelope = ConformanceCheck(
        id: "phone.dc.envelope",
        title: "the JSON request is Chromium's envelope: exactly origin (a serialized origin), requestType "
            + "(credential.get for \"dcp\") and request {digital: {requests: [{protocol, data}, …]}}",
        reference: "protocol.md §7.8")
    package static let dcCanonical = ConformanceCheck(
        id: "phone.dc.canonical",
        title: "the JSON request is written as Chromium's base::WriteJson writes it: no whitespace, members "
            + "sorted by name, its string escapes",
        reference: "protocol.md §7.8", required: false)

    // MARK: How the session ended (one of these per run)

    package static let sessionCompleted = ConformanceCheck(
        id: "phone.session.completed",
        title: "the client completes the session: its request is answered and it ends the tunnel",
        reference: "protocol.md §7.5")
    package static let profileTolerated = ConformanceCheck(
        id: "phone.profile.tolerated",
        title: "the client completes the session with this variant of a current real phone (--profile)",
        reference: "protocol.md §7.2, §7.4, §7.5, §10.5")
    package static let legacyProfileTolerated = ConformanceCheck(
        id: "phone.profile.legacy-tolerated",
        title: "the client also completes the session with a legacy phone (revision 0, old crypter)",
        reference: "protocol.md §10.2, §10.3", required: false)
    package static let lateUpdate = ConformanceCheck(
        id: "phone.session.late-update",
        title: "after its shutdown the client keeps the tunnel open for a late update until the phone closes",
        reference: "protocol.md §7.5, §10.8", required: false)
    package static let faultClientFailsCleanly = ConformanceCheck(
        id: "phone.fault.client-fails-cleanly",
        title: "after the phone's fault (--fault) the client ends the session within the limit",
        reference: "protocol.md §5.4, §7.1")
    package static let l2capFallback = ConformanceCheck(
        id: "phone.l2cap.fallback",
        title: "when the phone's advertised L2CAP PSM is closed (--fault closed-l2cap-psm), the client "
            + "completes the session over the tunnel",
        reference: "protocol.md §3.4, §10.9")

    /// The checks every run judges from the QR code and the client's messages, in report order.
    package static let judged: [ConformanceCheck] = [
        qrFormat, qrCanonicalCBOR, qrRequiredKeys, qrKeyTypes, qrKey4Present, qrKey4NoLinking, qrKey2Domains,
        qrKey6Type, qrKey6OnlyWithL2CAP, qrRequestType, qrTimestamp,
        handshakeLayout, handshakeAccepted,
        transportDecrypts, transportPadding, frameType, ctapCanonicalCBOR, ctapCommand, ctapMatchesHint,
        noSilentPreflight, oneRequest, shutdownAfterReply,
    ]

    /// The checks of a JSON (digital-credential) request, judged from the same messages; skipped
    /// in a session that sent none (except ``dcFeatures``, which every request is judged by).
    package static let digitalCredentials: [ConformanceCheck] = [dcFeatures, dcJSON, dcEnvelope, dcCanonical]

    /// Every check of the mode: ``judged``, ``digitalCredentials``, then the ones that say how a
    /// run ended.
    package static let all: [ConformanceCheck] =
        judged + digitalCredentials + [
            sessionCompleted, profileTolerated, legacyProfileTolerated, lateUpdate, faultClientFailsCleanly,
            l2capFallback,
        ]
}
