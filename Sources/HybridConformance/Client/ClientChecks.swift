/// The checks of `hybrid-conformance client`, which acts as a strict client (a browser) for an
/// authenticator under test: the session (protocol.md §6–§7), getInfo (CTAP 2.2 §6.4), and a
/// makeCredential followed by a getAssertion with the new credential (CTAP 2.2 §6.1, §6.2; WebAuthn
/// §6.1, §6.5, §8.2), each in its own QR ceremony as browsers do (one request per session, §7.5).
package enum ClientChecks {
    // MARK: Session

    package static let handshake = ConformanceCheck(
        id: "client.handshake.completed",
        title: "the authenticator answers the Noise handshake with a valid 81-byte msg2",
        reference: "protocol.md §6.2")
    package static let construction = ConformanceCheck(
        id: "client.transport.construction",
        title: "frames use the current crypter construction (big-endian nonce, empty AD)",
        reference: "protocol.md §10.3", required: false)
    package static let paddingLength = ConformanceCheck(
        id: "client.frames.padding",
        title: "every frame is padded to the smallest multiple of 32 bytes, its last byte counting the padding",
        reference: "protocol.md §7.1")
    package static let paddingZeros = ConformanceCheck(
        id: "client.frames.padding-zeros",
        title: "padding bytes are zero",
        reference: "protocol.md §7.1", required: false)
    package static let postHandshake = ConformanceCheck(
        id: "client.post-handshake.well-formed",
        title:
            "the post-handshake message is one canonical CBOR map: 1 getInfo (bstr), 3 features (array), "
            + "2 linking (map)",
        reference: "protocol.md §7.2")
    package static let postHandshakeRevision = ConformanceCheck(
        id: "client.post-handshake.revision",
        title: "the post-handshake message is revision 1 (a bare map, features [\"ctap\"] at key 3)",
        reference: "protocol.md §10.2", required: false)
    package static let reply = ConformanceCheck(
        id: "client.session.reply",
        title: "the authenticator answers the one request with one CTAP frame, and sends no shutdown",
        reference: "protocol.md §7.3")

    // MARK: getInfo

    package static let getInfoCanonical = ConformanceCheck(
        id: "client.getinfo.canonical-cbor",
        title: "getInfo (post-handshake key 1) is one canonical CBOR map",
        reference: "CTAP 2.2 §6.4, §8")
    package static let getInfoVersions = ConformanceCheck(
        id: "client.getinfo.versions",
        title: "getInfo key 1 (versions) is a non-empty array of text naming a FIDO_2 version",
        reference: "CTAP 2.2 §6.4")
    package static let getInfoAAGUID = ConformanceCheck(
        id: "client.getinfo.aaguid",
        title: "getInfo key 3 (aaguid) is 16 bytes",
        reference: "CTAP 2.2 §6.4")
    package static let getInfoOptions = ConformanceCheck(
        id: "client.getinfo.options",
        title: "getInfo key 4 (options) is a map of text to booleans (absent: a warning)",
        reference: "CTAP 2.2 §6.4")
    package static let getInfoWellFormed = ConformanceCheck(
        id: "client.getinfo.well-formed",
        title: "every getInfo field has its CTAP type",
        reference: "CTAP 2.2 §6.4")

    // MARK: makeCredential

    package static let makeCredentialStatus = ConformanceCheck(
        id: "client.makecredential.status",
        title: "makeCredential succeeds with status 00 and a response map",
        reference: "CTAP 2.2 §6.1")
    package static let makeCredentialCanonical = ConformanceCheck(
        id: "client.makecredential.canonical-cbor",
        title: "the makeCredential response is one canonical CBOR map",
        reference: "CTAP 2.2 §8")
    package static let makeCredentialResponse = ConformanceCheck(
        id: "client.makecredential.response",
        title: "the response has 1 fmt (text), 2 authData (bytes), 3 attStmt (map)",
        reference: "CTAP 2.2 §6.1")
    package static let makeCredentialAuthData = ConformanceCheck(
        id: "client.makecredential.authdata",
        title: "authData is rpIdHash, flags, counter, then exactly what AT and ED announce",
        reference: "WebAuthn §6.1")
    package static let makeCredentialRPIDHash = ConformanceCheck(
        id: "client.makecredential.rpid-hash",
        title: "authData rpIdHash is SHA-256 of the RP ID",
        reference: "WebAuthn §6.1")
    package static let makeCredentialFlags = ConformanceCheck(
        id: "client.makecredential.flags",
        title: "flags: UP set, AT set, UV only if getInfo offers uv, RFU bits clear, BS only with BE",
        reference: "WebAuthn §6.1, CTAP 2.2 §6.1")
    package static let makeCredentialAAGUID = ConformanceCheck(
        id: "client.makecredential.aaguid",
        title: "the attested aaguid is getInfo's aaguid (or zeros with \"none\" attestation)",
        reference: "WebAuthn §6.5.1")
    package static let makeCredentialCredentialID = ConformanceCheck(
        id: "client.makecredential.credential-id",
        title: "the credential ID is 16 to 1023 bytes",
        reference: "WebAuthn §6.5.1")
    package static let makeCredentialKey = ConformanceCheck(
        id: "client.makecredential.credential-key",
        title: "the credential key is a canonical ES256 COSE_Key whose point is on P-256",
        reference: "WebAuthn §6.5.1.1, RFC 9053 §7.1.1")
    package static let makeCredentialAttestation = ConformanceCheck(
        id: "client.makecredential.attestation",
        title:
            "attStmt is \"none\" with an empty map, or \"packed\" signed by the credential key (self) "
            + "or the x5c leaf certificate's key",
        reference: "WebAuthn §8.2, §8.7")

    // MARK: getAssertion

    package static let getAssertionStatus = ConformanceCheck(
        id: "client.getassertion.status",
        title: "getAssertion with the new credential succeeds with status 00 and a response map",
        reference: "CTAP 2.2 §6.2")
    package static let getAssertionCanonical = ConformanceCheck(
        id: "client.getassertion.canonical-cbor",
        title: "the getAssertion response is one canonical CBOR map",
        reference: "CTAP 2.2 §8")
    package static let getAssertionResponse = ConformanceCheck(
        id: "client.getassertion.response",
        title: "the response has 2 authData and 3 signature, and 1 credential names the allowed credential",
        reference: "CTAP 2.2 §6.2")
    package static let getAssertionAuthData = ConformanceCheck(
        id: "client.getassertion.authdata",
        title: "authData is rpIdHash, flags, counter and extensions only (no attested data)",
        reference: "WebAuthn §6.1")
    package static let getAssertionRPIDHash = ConformanceCheck(
        id: "client.getassertion.rpid-hash",
        title: "authData rpIdHash is SHA-256 of the RP ID",
        reference: "WebAuthn §6.1")
    package static let getAssertionFlags = ConformanceCheck(
        id: "client.getassertion.flags",
        title: "flags: UP set, AT clear, UV only if getInfo offers uv, RFU bits clear, BS only with BE",
        reference: "WebAuthn §6.1, CTAP 2.2 §6.2")
    package static let getAssertionSignature = ConformanceCheck(
        id: "client.getassertion.signature",
        title: "the signature over authData ‖ clientDataHash verifies with the registered key",
        reference: "WebAuthn §6.3.3, CTAP 2.2 §6.2")
    package static let counter = ConformanceCheck(
        id: "client.counter.monotonic",
        title: "the signature counter grows from makeCredential to getAssertion, or both are zero",
        reference: "WebAuthn §6.1.1")

    // MARK: Consent (one request per code, no silent assertion) and freshness (a dated code)

    package static let silentAssertion = ConformanceCheck(
        id: "client.consent.silent-getassertion",
        title:
            "a getAssertion with up = false is refused or asks the user (UP set); it is never signed silently",
        reference: "protocol.md §8.1, CTAP 2.2 §6.2")
    package static let oneRequest = ConformanceCheck(
        id: "client.consent.one-request",
        title: "one QR code serves one request: a second getAssertion in the session is refused or the tunnel closes",
        reference: "protocol.md §7.5, §8.1")
    package static let undatedQRCode = ConformanceCheck(
        id: "client.qr.undated-refused",
        title: "a QR code without a timestamp (key 3) is refused as possibly old: no handshake",
        reference: "protocol.md §1.3")

    package static let advertSuffix = ConformanceCheck(
        id: "client.advert.suffix-only-when-asked",
        title: "the advert has bytes after its 20 (the CTAP 2.3 L2CAP suffix) only when the QR code offered BLE L2CAP",
        reference: "protocol.md §3.4")

    /// Every check, in report order.
    package static let all: [ConformanceCheck] = [
        advertSuffix, handshake, construction, paddingLength, paddingZeros, postHandshake, postHandshakeRevision, reply,
        getInfoCanonical, getInfoVersions, getInfoAAGUID, getInfoOptions, getInfoWellFormed,
        makeCredentialStatus, makeCredentialCanonical, makeCredentialResponse, makeCredentialAuthData,
        makeCredentialRPIDHash, makeCredentialFlags, makeCredentialAAGUID, makeCredentialCredentialID,
        makeCredentialKey, makeCredentialAttestation,
        getAssertionStatus, getAssertionCanonical, getAssertionResponse, getAssertionAuthData,
        getAssertionRPIDHash, getAssertionFlags, getAssertionSignature, counter,
        silentAssertion, oneRequest, undatedQRCode,
    ]
}
