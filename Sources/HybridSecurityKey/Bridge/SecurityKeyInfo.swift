import HybridCTAP
import HybridCore

/// The authenticatorGetInfo the bridge answers locally, at once, without the phone.
package enum SecurityKeyInfo {
    /// This bridge's own AAGUID (random, fixed): `5e6804ee-05fb-4948-878a-ecf41b5c6b48`. The
    /// credentials themselves carry the phone's AAGUID, which the phone puts in authData.
    package static let aaguid: [UInt8] = [
        0x5E, 0x68, 0x04, 0xEE, 0x05, 0xFB, 0x49, 0x48, 0x87, 0x8A, 0xEC, 0xF4, 0x1B, 0x5C, 0x6B, 0x48,
    ]

    /// Most credential IDs a request may list: 20, so that every request a host builds from it
    /// reaches the key whole however late its reader runs.
    ///
    /// uhid has no flow control: the kernel queues at most 31 reports from a program
    /// (`UHID_BUFSIZE` 32 in `drivers/hid/uhid.c`, one slot kept free) and silently drops the
    /// rest, while hosts write every report of a request without waiting. Hosts split longer
    /// lists into silent probes of this many IDs (Chromium, Firefox, python-fido2), so the
    /// longest request is one chunk: 20 descriptors of 64-byte IDs (86 bytes of CBOR each) and a
    /// short request around them come to 31 reports, within the queue even when the reader never
    /// ran during the burst (the uhid load proof); with phones' IDs (16 to 32 bytes) a chunk is
    /// about 19 reports. 20 is also Firefox's own limit (it refuses longer lists), so a Firefox
    /// probe is always its only chunk (``BridgeRequestPolicy``).
    package static let maxCredentialCountInList: UInt64 = 20
    /// Firefox refuses allow and exclude lists longer than this (`MAX_ALLOWED_CREDENTIALS` in
    /// dom/webauthn): none of its probes is followed by another chunk.
    package static let firefoxListLimit = 20
    /// Longest credential ID a host may list (hosts drop longer ones from the list).
    package static let maxCredentialIDLength: UInt64 = 1023

    /// The PIN/UV auth protocols listed: protocol 1 only.
    ///
    /// Why list one at all when the key never runs a PIN protocol: python-fido2 2.x constructs a
    /// `ClientPin` (which needs a protocol both sides support) whenever it decides to use UV, and
    /// with `uv: true` and an empty list it stops with "No compatible PIN/UV protocols
    /// supported!" before sending anything. With a protocol listed, and neither `clientPin` nor
    /// `pinUvAuthToken` among the options, every host we checked takes the built-in-UV path and
    /// sends no clientPIN command at all: python-fido2 (`_get_token`: no token support, so
    /// `uv: true` on the request), Firefox (authenticator-rs `get_pin_uv_auth_param`: CTAP 2.0
    /// fallback, `uv: true`; it asks for a shared secret only for hmac-secret, which we do not
    /// list), Chromium (no `pinUvAuthToken`: internal UV) and libfido2 (no `pinUvAuthToken`: the
    /// `uv` option). clientPIN itself is still answered CTAP1_ERR_INVALID_COMMAND
    /// (``BridgeRequestPolicy``): a phone runs no PIN protocol over hybrid.
    ///
    /// `makeCredUvNotRqd` is deliberately not reported: Chromium then downgrades makeCredential
    /// to "discouraged" UV whenever it has no pinUvAuth token, which is every time here.
    package static let pinUvAuthProtocols: [UInt64] = [1]

    /// The response map. As phones report (protocol.md §8.3): FIDO 2.0 and 2.1, options rk, up
    /// and uv true (the phone verifies its user), and no clientPin; pinUvAuthProtocols [1] (see
    /// ``pinUvAuthProtocols``). maxMsgSize is the CTAPHID maximum (7609); transports `usb`, as the
    /// host reaches us.
    package static let response = AuthenticatorGetInfoResponse(
        versions: ["FIDO_2_0", "FIDO_2_1"],
        aaguid: aaguid,
        options: ["rk": true, "up": true, "uv": true, "plat": false],
        maxMessageSize: UInt64(CTAPHIDPacket.maximumMessageLength),
        pinUvAuthProtocols: pinUvAuthProtocols,
        maxCredentialCountInList: maxCredentialCountInList,
        maxCredentialIDLength: maxCredentialIDLength,
        transports: ["usb"]
    )

    /// Status OK followed by the response map.
    package static var responseBytes: [UInt8] { CTAPResponse.encode(status: .ok, body: response.cbor) }
}
