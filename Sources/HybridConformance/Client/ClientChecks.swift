/// The checks of `hybrid-conformance client`, which acts as a strict client (a browser) for an
/// authenticator under test: the session (protocol.md §6–§7), getInfo (CTAP 2.3 §6.4), and a
/// makeCredential followed by a getAssertion with the new credential (CTAP 2.3 §6.1, §6.2; WebAuthn
/// §6.1, §6.5, §8.2), each in its own QR ceremony as browsers do (one request per session, §7.5).
package enum ClientChecks {
    // MARK: Session

    package static let handshake = ConformanceCheck(
        id: "client.handshake.completed",
        title: "the authenticator answers the Noise handshake with a valid 81-byte msg2",
        reference: "protocol.md §6.2",
        source:
            "PXP (formerly CTAP 2.2/2.3 §11.5 hybrid): the Noise KNpsk0 handshake; reference behaviour of the "
            + "Chromium client, which fails the session on a bad msg2 (protocol.md §6.2, from v2_handshake.cc)")
    package static let construction = ConformanceCheck(
        id: "client.transport.construction",
        title: "frames use the current crypter construction (big-endian nonce, empty AD)",
        reference: "protocol.md §10.3",
        source:
            "advice: the old construction is legal for phones that predate it (protocol.md §10.3); current phones "
            + "use the new one", required: false)
    package static let paddingLength = ConformanceCheck(
        id: "client.frames.padding",
        title: "every frame is padded to the smallest multiple of 32 bytes, its last byte counting the padding",
        reference: "protocol.md §7.1",
        source:
            "reference behaviour: the Chromium client strips count + 1 bytes and fails a session whose count does "
            + "not fit (protocol.md §7.1, from v2_handshake.cc Crypter)")
    package static let paddingZeros = ConformanceCheck(
        id: "client.frames.padding-zeros",
        title: "padding bytes are zero",
        reference: "protocol.md §7.1",
        source:
            "advice: Chromium does not check the padding bytes (protocol.md §7.1)", required: false)
    package static let postHandshake = ConformanceCheck(
        id: "client.post-handshake.well-formed",
        title:
            "the post-handshake message is one canonical CBOR map: 1 getInfo (bstr), 3 features (array), "
            + "2 linking (map)",
        reference: "protocol.md §7.2",
        source:
            "reference behaviour: the Chromium client fails a session whose post-handshake message is not such a "
            + "map (protocol.md §7.2 client checks, from fido_tunnel_device.cc)")
    package static let postHandshakeRevision = ConformanceCheck(
        id: "client.post-handshake.revision",
        title: "the post-handshake message is revision 1 (a bare map, features [\"ctap\"] at key 3)",
        reference: "protocol.md §10.2",
        source:
            "advice: revision 0 is still understood by Chromium (protocol.md §10.2)", required: false)
    package static let reply = ConformanceCheck(
        id: "client.session.reply",
        title: "the authenticator answers the one request with one CTAP frame, and sends no shutdown",
        reference: "protocol.md §7.3",
        source:
            "reference behaviour: the Chromium client treats a phone-sent shutdown as a protocol error and waits "
            + "for one reply per request (protocol.md §7.3, §7.5, from fido_tunnel_device.cc)")

    // MARK: getInfo

    package static let getInfoCanonical = ConformanceCheck(
        id: "client.getinfo.canonical-cbor",
        title: "getInfo (post-handshake key 1) is one canonical CBOR map",
        reference: "CTAP 2.3 §6.4, §8",
        source:
            "CTAP 2.3 §6.4 authenticatorGetInfo, §8 (canonical CBOR MUST)")
    package static let getInfoVersions = ConformanceCheck(
        id: "client.getinfo.versions",
        title: "getInfo key 1 (versions) is a non-empty array of text naming a FIDO_2 version",
        reference: "CTAP 2.3 §6.4",
        source:
            "CTAP 2.3 §6.4 (versions is required)")
    package static let getInfoAAGUID = ConformanceCheck(
        id: "client.getinfo.aaguid",
        title: "getInfo key 3 (aaguid) is 16 bytes",
        reference: "CTAP 2.3 §6.4",
        source:
            "CTAP 2.3 §6.4 (aaguid is required, 16 bytes)")
    package static let getInfoOptions = ConformanceCheck(
        id: "client.getinfo.options",
        title: "getInfo key 4 (options) is a map of text to booleans (absent: a warning)",
        reference: "CTAP 2.3 §6.4",
        source:
            "CTAP 2.3 §6.4 (options, when present, is a map of text to booleans)")
    package static let getInfoWellFormed = ConformanceCheck(
        id: "client.getinfo.well-formed",
        title: "every getInfo field has its CTAP type",
        reference: "CTAP 2.3 §6.4",
        source:
            "CTAP 2.3 §6.4 (each member has its CBOR type)")

    // MARK: makeCredential

    package static let makeCredentialStatus = ConformanceCheck(
        id: "client.makecredential.status",
        title: "makeCredential succeeds with status 00 and a response map",
        reference: "CTAP 2.3 §6.1",
        source:
            "CTAP 2.3 §6.1 authenticatorMakeCredential")
    package static let makeCredentialCanonical = ConformanceCheck(
        id: "client.makecredential.canonical-cbor",
        title: "the makeCredential response is one canonical CBOR map",
        reference: "CTAP 2.3 §8",
        source:
            "CTAP 2.3 §8 (responses MUST be in the CTAP2 canonical CBOR encoding)")
    package static let makeCredentialResponse = ConformanceCheck(
        id: "client.makecredential.response",
        title: "the response has 1 fmt (text), 2 authData (bytes), 3 attStmt (map)",
        reference: "CTAP 2.3 §6.1",
        source:
            "CTAP 2.3 §6.1 (fmt, authData, attStmt are required members)")
    package static let makeCredentialAuthData = ConformanceCheck(
        id: "client.makecredential.authdata",
        title: "authData is rpIdHash, flags, counter, then exactly what AT and ED announce",
        reference: "WebAuthn §6.1",
        source:
            "WebAuthn §6.1 authenticator data layout")
    package static let makeCredentialRPIDHash = ConformanceCheck(
        id: "client.makecredential.rpid-hash",
        title: "authData rpIdHash is SHA-256 of the RP ID",
        reference: "WebAuthn §6.1",
        source:
            "WebAuthn §6.1 (rpIdHash is SHA-256 of the RP ID)")
    package static let makeCredentialFlags = ConformanceCheck(
        id: "client.makecredential.flags",
        title: "flags: UP set, AT set, UV only if getInfo offers uv, RFU bits clear, BS only with BE",
        reference: "WebAuthn §6.1, CTAP 2.3 §6.1",
        source:
            "WebAuthn §6.1 flags, CTAP 2.3 §6.1 (UP set unless up = false; AT with attested data)")
    package static let makeCredentialAAGUID = ConformanceCheck(
        id: "client.makecredential.aaguid",
        title: "the attested aaguid is getInfo's aaguid (or zeros with \"none\" attestation)",
        reference: "WebAuthn §6.5.1",
        source:
            "WebAuthn §6.5.1 attested credential data")
    package static let makeCredentialCredentialID = ConformanceCheck(
        id: "client.makecredential.credential-id",
        title: "the credential ID is 16 to 1023 bytes",
        reference: "WebAuthn §6.5.1",
        source:
            "WebAuthn §6.5.1 (credentialIdLength at most 1023); 16 bytes minimum: WebAuthn §4 credential ID guidance")
    package static let makeCredentialKey = ConformanceCheck(
        id: "client.makecredential.credential-key",
        title: "the credential key is a canonical ES256 COSE_Key whose point is on P-256",
        reference: "WebAuthn §6.5.1.1, RFC 9053 §7.1.1",
        source:
            "WebAuthn §6.5.1.1, RFC 9053 §7.1.1 (EC2 key, point on the curve)")
    package static let makeCredentialAttestation = ConformanceCheck(
        id: "client.makecredential.attestation",
        title:
            "attStmt is \"none\" with an empty map, or \"packed\" signed by the credential key (self) "
            + "or the x5c leaf certificate's key",
        reference: "WebAuthn §8.2, §8.7",
        source:
            "WebAuthn §8.2 packed, §8.7 none")

    // MARK: getAssertion

    package static let getAssertionStatus = ConformanceCheck(
        id: "client.getassertion.status",
        title: "getAssertion with the new credential succeeds with status 00 and a response map",
        reference: "CTAP 2.3 §6.2",
        source:
            "CTAP 2.3 §6.2 authenticatorGetAssertion")
    package static let getAssertionCanonical = ConformanceCheck(
        id: "client.getassertion.canonical-cbor",
        title: "the getAssertion response is one canonical CBOR map",
        reference: "CTAP 2.3 §8",
        source:
            "CTAP 2.3 §8 (canonical CBOR)")
    package static let getAssertionResponse = ConformanceCheck(
        id: "client.getassertion.response",
        title: "the response has 2 authData and 3 signature, and 1 credential names the allowed credential",
        reference: "CTAP 2.3 §6.2",
        source:
            "CTAP 2.3 §6.2 (authData and signature required; credential names an allowed credential)")
    package static let getAssertionAuthData = ConformanceCheck(
        id: "client.getassertion.authdata",
        title: "authData is rpIdHash, flags, counter and extensions only (no attested data)",
        reference: "WebAuthn §6.1",
        source:
            "WebAuthn §6.1 (no attested credential data in an assertion)")
    package static let getAssertionRPIDHash = ConformanceCheck(
        id: "client.getassertion.rpid-hash",
        title: "authData rpIdHash is SHA-256 of the RP ID",
        reference: "WebAuthn §6.1",
        source:
            "WebAuthn §6.1")
    package static let getAssertionFlags = ConformanceCheck(
        id: "client.getassertion.flags",
        title: "flags: UP set, AT clear, UV only if getInfo offers uv, RFU bits clear, BS only with BE",
        reference: "WebAuthn §6.1, CTAP 2.3 §6.2",
        source:
            "WebAuthn §6.1 flags, CTAP 2.3 §6.2")
    package static let getAssertionSignature = ConformanceCheck(
        id: "client.getassertion.signature",
        title: "the signature over authData ‖ clientDataHash verifies with the registered key",
        reference: "WebAuthn §6.3.3, CTAP 2.3 §6.2",
        source:
            "WebAuthn §6.3.3 authenticatorGetAssertion step 11, CTAP 2.3 §6.2")
    package static let counter = ConformanceCheck(
        id: "client.counter.monotonic",
        title: "the signature counter grows from makeCredential to getAssertion, or both are zero",
        reference: "WebAuthn §6.1.1",
        source:
            "WebAuthn §6.1.1 signature counter")

    // MARK: Consent (one request per code, no silent assertion) and freshness (a dated code)

    package static let silentAssertion = ConformanceCheck(
        id: "client.consent.silent-getassertion",
        title:
            "a getAssertion with up = false is refused or asks the user (UP set); it is never signed silently",
        reference: "protocol.md §8.1, CTAP 2.3 §6.2",
        source:
            "advice (security): CTAP 2.3 §6.2 lets an authenticator skip the presence test when up = false, and no "
            + "hybrid rule we could read forbids it; a phone that signs silently lets the client that showed one QR "
            + "code collect assertions the user never saw (Android shows UI for them: protocol.md §8.1)",
        required: false)
    package static let oneRequest = ConformanceCheck(
        id: "client.consent.one-request",
        title: "one QR code serves one request: a second getAssertion in the session is refused or the tunnel closes",
        reference: "protocol.md §7.5, §8.1",
        source:
            "advice (security): no rule we could read says a phone must refuse a second request; phones serve one "
            + "(protocol.md §7.5, webauthn-rs, Chromium 156 live), and a second request the user never saw should "
            + "not be signed", required: false)
    package static let undatedQRCode = ConformanceCheck(
        id: "client.qr.undated-refused",
        title: "a QR code without a timestamp (key 3) is refused as possibly old: no handshake",
        reference: "protocol.md §1.3",
        source:
            "advice (security): protocol.md §1.3 makes key 3 optional and Chromium's parser does not read it, so a "
            + "phone that serves an undated code conforms; refusing a code whose age it cannot check protects "
            + "against a replayed photograph of an old code", required: false)

    package static let advertSuffix = ConformanceCheck(
        id: "client.advert.suffix-only-when-asked",
        title: "the advert has bytes after its 20 (the CTAP 2.3 L2CAP suffix) only when the QR code offered BLE L2CAP",
        reference: "protocol.md §3.4",
        source:
            "CTAP 2.3 §11.5.1.1 data transfer channel, now PXP (secondary: zenn summary, libwebauthn): the suffix "
            + "follows an offer of channel 1; reference behaviour: the Chromium client rejects 24-byte service "
            + "data (protocol.md §3.4)")

    package static let l2capSession = ConformanceCheck(
        id: "client.l2cap.session",
        title:
            "an advert that carries a PSM (the CTAP 2.3 L2CAP suffix) leads to a session over that LE L2CAP channel: "
            + "the client connects to it, the handshake and the request run over it, and the reply comes back",
        reference: "protocol.md §3.4, §10.9",
        source:
            "CTAP 2.3 §11.5.1.1 data transfer channel, now PXP (secondary: zenn summary, libwebauthn's pxp crate): "
            + "the suffix is the phone's offer of channel 1 on that PSM, which a client that offered it may take "
            + "with no tunnel at all; reference behaviour: the Android phone's advert {1: PSM} (Tests/Vectors)")

    package static let advertRoutes = ConformanceCheck(
        id: "client.advert.routes-to-tunnel",
        title:
            "the advert decrypts under the QR code's EID key, names an assigned or hashed tunnel domain, and its "
            + "routing ID leads to the tunnel on which the phone answers the handshake",
        reference: "protocol.md §3.1, §3.2, §4, §5.1",
        source:
            "PXP (formerly CTAP 2.2 §11.5.1 QR-initiated transactions): the client finds the phone's tunnel only "
            + "from the advert; reference behaviour: the Chromium client trial-decrypts the advert and connects "
            + "to the domain and routing ID it names (protocol.md §3, from v2_discovery.cc)")
    package static let updateWellFormed = ConformanceCheck(
        id: "client.update.well-formed",
        title:
            "every update message (type 02), before or after the answer, is one CBOR map whose key 1, if "
            + "present, is a linking map",
        reference: "protocol.md §7.4, §7.5, §7.6",
        source:
            "reference behaviour: the Chromium client closes the connection on an update whose key 1 is not a "
            + "map or whose linking info does not parse, and keeps the tunnel open after shutdown for a late "
            + "update (protocol.md §7.4, §7.5, from fido_tunnel_device.cc)")

    /// Every check, in report order.
    package static let all: [ConformanceCheck] = [
        advertSuffix, l2capSession, advertRoutes, handshake, construction, paddingLength, paddingZeros, postHandshake,
        postHandshakeRevision, updateWellFormed, reply,
        getInfoCanonical, getInfoVersions, getInfoAAGUID, getInfoOptions, getInfoWellFormed,
        makeCredentialStatus, makeCredentialCanonical, makeCredentialResponse, makeCredentialAuthData,
        makeCredentialRPIDHash, makeCredentialFlags, makeCredentialAAGUID, makeCredentialCredentialID,
        makeCredentialKey, makeCredentialAttestation,
        getAssertionStatus, getAssertionCanonical, getAssertionResponse, getAssertionAuthData,
        getAssertionRPIDHash, getAssertionFlags, getAssertionSignature, counter,
        silentAssertion, oneRequest, undatedQRCode,
    ]
}
