/// The checks of `hybrid-conformance phone`: the tool acts as a strict phone and judges the client
/// under test (a browser, libwebauthn, hybrid-client) by its QR code and every message it sends.
package enum PhoneChecks {
    // MARK: The QR code

    package static let qrFormat = ConformanceCheck(
        id: "phone.qr.format", title: "the QR text is FIDO:/ followed by a valid digit encoding",
        reference: "protocol.md §1.1, §1.2",
        source:
            "reference behaviour: the Chromium phone's parser reads only FIDO:/ and the digit encoding "
            + "(protocol.md §1.1, §1.2, from v2_handshake.cc); PXP (formerly CTAP 2.2 §11.5.1) QR-initiated "
            + "transactions")
    package static let qrCanonicalCBOR = ConformanceCheck(
        id: "phone.qr.canonical-cbor", title: "the QR payload is one canonical CBOR map with unsigned integer keys",
        reference: "protocol.md §0.2, §1.3",
        source:
            "CTAP 2.3 §8 canonical CBOR; reference behaviour: the Chromium phone parses the payload with a strict "
            + "CBOR reader and needs a map (protocol.md §1.3, validation steps 3-4)")
    package static let qrRequiredKeys = ConformanceCheck(
        id: "phone.qr.required-keys",
        title: "key 0 is a 33-byte compressed P-256 point and key 1 a 16-byte secret",
        reference: "protocol.md §1.3",
        source:
            "reference behaviour: the Chromium phone rejects a code without key 0 (33 bytes, a valid point) and "
            + "key 1 (16 bytes) (protocol.md §1.3, validation step 4)")
    package static let qrKeyTypes = ConformanceCheck(
        id: "phone.qr.key-types", title: "keys 2 and 3 are unsigned integers, 4 a bool and 5 a text string if present",
        reference: "protocol.md §1.3",
        source:
            "reference behaviour: the Chromium phone type-checks keys 2, 4 and 5 and rejects a wrong type "
            + "(protocol.md §1.3, validation step 5); key 3 an unsigned integer: protocol.md §1.3 table")
    package static let qrKey4Present = ConformanceCheck(
        id: "phone.qr.key4-present",
        title: "key 4 (linking) is present, so that intermediate Android phones use revision 1",
        reference: "protocol.md §10.2",
        source:
            "reference behaviour: intermediate Chrome-Android builds speak revision 1 only when key 4 is present, "
            + "and every Chromium client sends it (protocol.md §1.3, §10.2, from the Android glue @561ebe4a)")
    package static let qrKey4NoLinking = ConformanceCheck(
        id: "phone.qr.key4-false",
        title: "key 4 is false: WebAuthn clients no longer ask for linking (Chrome ≥ M136, Safari)",
        reference: "protocol.md §10.6",
        source:
            "advice: current WebAuthn clients send false (Chrome >= M136, Safari, protocol.md §10.6); true is legal",
        required: false)
    package static let qrKey2Domains = ConformanceCheck(
        id: "phone.qr.key2-domains",
        title: "key 2 announces both assigned tunnel domains (2), which picks the new crypter",
        reference: "protocol.md §4.1, §10.3",
        source:
            "advice: 2 is what Chromium sends; intermediate Android builds pick the crypter from it (protocol.md "
            + "§4.1, §10.3)", required: false)
    package static let qrKey6Type = ConformanceCheck(
        id: "phone.qr.key6-type", title: "key 6, if present, is an array of unsigned channel IDs (CTAP 2.3)",
        reference: "protocol.md §1.3",
        source:
            "CTAP 2.3 §11.5.1.1 data transfer channel, now PXP (secondary: zenn summary, libwebauthn): key 6 lists "
            + "channel IDs (protocol.md §1.3)")
    package static let qrKey6OnlyWithL2CAP = ConformanceCheck(
        id: "phone.qr.key6-only-with-l2cap",
        title: "key 6 is omitted unless it offers BLE L2CAP (Play Services before CTAP 2.3 rejects an array)",
        reference: "protocol.md §1.3, §10.1",
        source:
            "advice: Play Services before CTAP 2.3 rejects an array at key 6 (libwebauthn docs, credentialsd#166; "
            + "protocol.md §1.3, §10.1)", required: false)
    package static let qrRequestType = ConformanceCheck(
        id: "phone.qr.request-type", title: "key 5 is \"ga\", \"mc\", \"dcp\" or \"dci\"",
        reference: "protocol.md §1.3",
        source:
            "advice: unknown or absent key 5 is read as \"ga\" (protocol.md §1.3)", required: false)
    package static let qrTimestamp = ConformanceCheck(
        id: "phone.qr.timestamp", title: "key 3 is the current time (within 10 minutes)",
        reference: "protocol.md §1.3",
        source:
            "advice: key 3 is optional and Chromium's parser does not read it (protocol.md §1.3)", required: false)

    // MARK: The handshake

    package static let handshakeLayout = ConformanceCheck(
        id: "phone.handshake.layout",
        title: "msg1 is 81 bytes: an uncompressed P-256 point (65) and the 16-byte tag of an empty payload",
        reference: "protocol.md §6.2",
        source:
            "reference behaviour: the Chromium phone reads msg1 as a 65-byte point and a 16-byte tag (protocol.md "
            + "§6.2, from v2_handshake.cc); PXP (formerly CTAP 2.2 §11.5) Noise handshake")
    package static let handshakeAccepted = ConformanceCheck(
        id: "phone.handshake.keys", title: "msg1 is a KNpsk0 message under the QR identity key and the advert's PSK",
        reference: "protocol.md §2, §6.2",
        source:
            "reference behaviour: the Chromium phone answers only a KNpsk0 msg1 under the QR identity key and the "
            + "advert's PSK (protocol.md §2, §6.2, from v2_handshake.cc)")

    // MARK: Every client message after the handshake

    package static let transportDecrypts = ConformanceCheck(
        id: "phone.transport.decrypts",
        title: "every message decrypts with the next sequence number and the phone's construction",
        reference: "protocol.md §7.1",
        source:
            "reference behaviour: the Chromium phone closes on a message that does not open with the next sequence "
            + "number (protocol.md §7.1, from v2_handshake.cc Crypter)")
    package static let transportPadding = ConformanceCheck(
        id: "phone.transport.padding",
        title: "every plaintext is padded with zeros to the smallest multiple of 32, then the zero count",
        reference: "protocol.md §7.1",
        source:
            "reference behaviour: every reference client pads so (Chromium Crypter, webauthn-rs framing.rs; "
            + "protocol.md §7.1); the phone strips count + 1 bytes and fails when they do not fit")
    package static let frameType = ConformanceCheck(
        id: "phone.frame.type", title: "every message starts with a type byte the client may send (00, 01 or 03)",
        reference: "protocol.md §7.3",
        source:
            "reference behaviour: the Chromium phone closes on a type byte above 03 and treats 02 from a client as "
            + "an update (protocol.md §7.3)")
    package static let ctapCanonicalCBOR = ConformanceCheck(
        id: "phone.ctap.canonical-cbor", title: "the CTAP request is a command byte and one canonical CBOR map",
        reference: "protocol.md §0.2, §8.1",
        source:
            "CTAP 2.3 §8 (requests MUST use the CTAP2 canonical CBOR encoding)")
    package static let ctapCommand = ConformanceCheck(
        id: "phone.ctap.command", title: "the request is makeCredential (01) or getAssertion (02)",
        reference: "protocol.md §8.1",
        source:
            "reference behaviour: the Chromium phone serves 01, 02 and 04 and fails anything else with "
            + "INVALID_CTAP (protocol.md §8.1); getInfo is answered locally by Chromium from the post-handshake "
            + "message")
    package static let ctapMatchesHint = ConformanceCheck(
        id: "phone.ctap.matches-hint", title: "the request matches the QR code's request type (key 5)",
        reference: "protocol.md §1.3",
        source:
            "advice: key 5 is only a hint (protocol.md §1.3)", required: false)
    package static let noSilentPreflight = ConformanceCheck(
        id: "phone.ctap.no-silent-preflight", title: "no getAssertion with up = false (a silent preflight)",
        reference: "protocol.md §8.1",
        source:
            "reference behaviour: Android shows UI for a getAssertion with up = false and the session burns out "
            + "(protocol.md §8.1, libwebauthn#97)")
    package static let oneRequest = ConformanceCheck(
        id: "phone.session.one-request", title: "the client sends exactly one request per session",
        reference: "protocol.md §7.5",
        source:
            "reference behaviour: phones handle one CTAP command per session and then hang up (protocol.md §7.5, "
            + "webauthn-rs docs; our phone closes on a second one); Chromium 156 sent exactly one")
    package static let shutdownAfterReply = ConformanceCheck(
        id: "phone.session.shutdown",
        title: "after the reply the client sends shutdown (00) and then nothing more",
        reference: "protocol.md §7.3, §7.5",
        source:
            "reference behaviour: the Chromium client sends shutdown after its last response (protocol.md §7.5, "
            + "from fido_tunnel_device.cc); the Chromium phone finishes on it")

    // MARK: The JSON (digital-credential) path

    package static let dcFeatures = ConformanceCheck(
        id: "phone.dc.features",
        title: "the client sends JSON (03) only to a phone whose post-handshake features include \"dc\", "
            + "and CTAP (01) only to one whose features include \"ctap\"",
        reference: "protocol.md §7.2, §7.8",
        source:
            "reference behaviour: Chromium's RequestDispatcher sends JSON only to a phone that listed \"dc\" and "
            + "fails the request otherwise (protocol.md §7.8, from cross_device_request_dispatcher.cc); a phone "
            + "closes on a request of a feature it did not offer (§7.3)")
    package static let dcJSON = ConformanceCheck(
        id: "phone.dc.json",
        title: "the JSON request is one UTF-8 JSON document (RFC 8259: no lone surrogates, no control "
            + "characters in strings) within 1 MiB − 64 bytes and 200 levels",
        reference: "protocol.md §7.8",
        source:
            "RFC 8259 (JSON text MUST be UTF-8, §8.1), the 1 MiB tunnel message limit (protocol.md §5.4), and "
            + "reference behaviour: Chromium's base::JSONReader reads at most 200 levels (kAbsoluteMaxDepth)")
    package static let dcJSONBounds = ConformanceCheck(
        id: "phone.dc.json-bounds",
        title: "the JSON request stays within our phone's bounds: 32 levels, every member name once in its object",
        reference: "protocol.md §7.8",
        source:
            "advice: our phone refuses deeper documents and duplicate names (RFC 8259 §4: names SHOULD be unique, "
            + "and readers differ on which value wins); RFC 8259 allows both", required: false)
    package static let dcEnvelope = ConformanceCheck(
        id: "phone.dc.envelope",
        title: "the JSON request is Chromium's envelope: exactly origin (a serialized origin), requestType "
            + "(credential.get for \"dcp\") and request {digital: {requests: [{protocol, data}, …]}}",
        reference: "protocol.md §7.8",
        source:
            "reference behaviour: Chromium's RequestToJSONBytes writes exactly these members, and phones read them "
            + "(protocol.md §7.8, from cross_device_request_dispatcher.cc); W3C Digital Credentials API: the "
            + "request's protocol and data")
    package static let dcCanonical = ConformanceCheck(
        id: "phone.dc.canonical",
        title: "the JSON request is written as Chromium's base::WriteJson writes it: no whitespace, members "
            + "sorted by name, its string escapes",
        reference: "protocol.md §7.8",
        source:
            "advice: base::WriteJson's form is what Chromium writes; any JSON is readable", required: false)

    // MARK: How the session ended (one of these per run)

    package static let sessionCompleted = ConformanceCheck(
        id: "phone.session.completed",
        title: "the client completes the session: its request is answered and it ends the tunnel",
        reference: "protocol.md §7.5",
        source:
            "PXP (formerly CTAP 2.2 §11.5): the session carries the request and its answer; reference behaviour of "
            + "the Chromium client (protocol.md §7.5)")
    package static let profileTolerated = ConformanceCheck(
        id: "phone.profile.tolerated",
        title: "the client completes the session with this variant of a current real phone (--profile)",
        reference: "protocol.md §7.2, §7.4, §7.5, §10.5",
        source:
            "reference behaviour of real phones that clients must accept: post-handshake variants (§7.2), updates "
            + "(§7.4), session end (§7.5), Android/iOS differences (§10.5)")
    package static let legacyProfileTolerated = ConformanceCheck(
        id: "phone.profile.legacy-tolerated",
        title: "the client also completes the session with a legacy phone (revision 0, old crypter)",
        reference: "protocol.md §10.2, §10.3",
        source:
            "advice: revision 0 and the old crypter are only spoken by old phones (protocol.md §10.2, §10.3)",
        required: false)
    package static let lateUpdate = ConformanceCheck(
        id: "phone.session.late-update",
        title: "after its shutdown the client keeps the tunnel open for a late update until the phone closes",
        reference: "protocol.md §7.5, §10.8",
        source:
            "advice: the Chromium client waits up to 3 minutes for a late update (protocol.md §7.5); a client that "
            + "closes at once loses only linking", required: false)
    package static let faultClientFailsCleanly = ConformanceCheck(
        id: "phone.fault.client-fails-cleanly",
        title: "after the phone's fault (--fault) the client ends the session within the limit",
        reference: "protocol.md §5.4, §7.1",
        source:
            "security and robustness: a client must end a session whose phone broke the protocol (protocol.md "
            + "§5.4, §7.1: a message that does not open is fatal)")
    package static let l2capFallback = ConformanceCheck(
        id: "phone.l2cap.fallback",
        title: "when the phone's advertised L2CAP PSM is closed (--fault closed-l2cap-psm), the client "
            + "completes the session over the tunnel",
        reference: "protocol.md §3.4, §10.9",
        source:
            "advice: CTAP 2.3 §11.5.1.1, now PXP, makes L2CAP optional (zenn summary); falling back to the tunnel "
            + "is our choice (protocol.md §3.4, §10.9)", required: false)

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
    package static let digitalCredentials: [ConformanceCheck] = [
        dcFeatures, dcJSON, dcJSONBounds, dcEnvelope, dcCanonical,
    ]

    /// Every check of the mode: ``judged``, ``digitalCredentials``, then the ones that say how a
    /// run ended.
    package static let all: [ConformanceCheck] =
        judged + digitalCredentials + [
            sessionCompleted, profileTolerated, legacyProfileTolerated, lateUpdate, faultClientFailsCleanly,
            l2capFallback,
        ]
}
