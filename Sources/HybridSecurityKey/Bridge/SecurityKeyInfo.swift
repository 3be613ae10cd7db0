import HybridCore

/// The authenticatorGetInfo the bridge answers locally, at once, without the phone.
public enum SecurityKeyInfo {
    /// This bridge's own AAGUID (random, fixed): `5e6804ee-05fb-4948-878a-ecf41b5c6b48`. The
    /// credentials themselves carry the phone's AAGUID, which the phone puts in authData.
    public static let aaguid: [UInt8] = [
        0x5E, 0x68, 0x04, 0xEE, 0x05, 0xFB, 0x49, 0x48, 0x87, 0x8A, 0xEC, 0xF4, 0x1B, 0x5C, 0x6B, 0x48,
    ]

    /// Most credential IDs a request may list. Large, so that hosts send one allow or exclude
    /// list in one request instead of probing batches silently (which a phone cannot answer).
    public static let maxCredentialCountInList: UInt64 = 64
    /// Longest credential ID a host may list (hosts drop longer ones from the list).
    public static let maxCredentialIDLength: UInt64 = 1023

    /// The response map. As phones report (protocol.md §8.3): FIDO 2.0 and 2.1, options rk, up
    /// and uv true (the phone verifies its user), and no clientPin and no pinUvAuthProtocols.
    /// maxMsgSize is the CTAPHID maximum (7609); transports `usb`, as the host reaches us.
    public static let response = AuthenticatorGetInfoResponse(
        versions: ["FIDO_2_0", "FIDO_2_1"],
        aaguid: aaguid,
        options: ["rk": true, "up": true, "uv": true, "plat": false],
        maxMessageSize: UInt64(CTAPHIDPacket.maximumMessageLength),
        maxCredentialCountInList: maxCredentialCountInList,
        maxCredentialIDLength: maxCredentialIDLength,
        transports: ["usb"]
    )

    /// Status OK followed by the response map.
    public static var responseBytes: [UInt8] { CTAPResponse.encode(status: .ok, body: response.cbor) }
}
