import HybridCore

/// CTAP requests and responses written out head byte by head byte (RFC 8949 §3, CTAP 2.2 §6),
/// in the key order each host writes them, so that tests never depend on our own encoder.
enum HandCBOR {
    static func head(_ major: UInt8, _ count: Int) -> [UInt8] {
        switch count {
        case 0..<24: [major << 5 | UInt8(count)]
        case 24..<256: [major << 5 | 24, UInt8(count)]
        default: [major << 5 | 25, UInt8(count >> 8), UInt8(count & 0xff)]
        }
    }

    static func text(_ string: String) -> [UInt8] { head(3, string.utf8.count) + Array(string.utf8) }
    static func bytes(_ bytes: [UInt8]) -> [UInt8] { head(2, bytes.count) + bytes }
    static func array(_ items: [[UInt8]]) -> [UInt8] { head(4, items.count) + items.flatMap { $0 } }

    /// `{"id": id, "type": "public-key"}`, as every host writes a descriptor (canonical order).
    static func descriptor(_ id: [UInt8]) -> [UInt8] {
        [0xA2] + text("id") + bytes(id) + text("type") + text("public-key")
    }

    /// `{"id": id, "type": "public-key", "transports": ["usb"]}` (Chromium's order, canonical).
    static func descriptorWithUSB(_ id: [UInt8]) -> [UInt8] {
        [0xA3] + text("id") + bytes(id) + text("type") + text("public-key") + text("transports") + array([text("usb")])
    }

    /// `{"alg": -7, "type": "public-key"}`.
    static let es256Parameters: [UInt8] = [0xA2] + text("alg") + [0x26] + text("type") + text("public-key")

    /// `{"uv": true, "up": true}` as authenticator-rs writes its `GetAssertionOptions` struct
    /// (fields `uv`, then `up`): not canonical.
    static let firefoxUVUP: [UInt8] = [0xA2, 0x62, 0x75, 0x76, 0xF5, 0x62, 0x75, 0x70, 0xF5]
    /// `{"up": true, "uv": true}`: the same map in canonical order.
    static let canonicalUPUV: [UInt8] = [0xA2, 0x62, 0x75, 0x70, 0xF5, 0x62, 0x75, 0x76, 0xF5]
    /// `{"up": false}`: the probe's options.
    static let upFalse: [UInt8] = [0xA1, 0x62, 0x75, 0x70, 0xF4]

    /// SHA-256("example.com") (FIPS 180-4; `printf example.com | sha256sum`).
    static let exampleRPIDHash: [UInt8] = try! Hex.decode(
        "a379a6f6eeafb9a55e378c118034e2751e682fab9f2d30ab13d2125586ce1947")
    /// SHA-256(""): Firefox's probe clientDataHash.
    static let emptyHash: [UInt8] = try! Hex.decode("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")

    /// A getAssertion as authenticator-rs `GetAssertion::serialize` writes it: keys 1 rpId,
    /// 2 clientDataHash, 3 allowList (only when non-empty), 5 options.
    static func getAssertion(
        rpID: String = "example.com", clientDataHash: [UInt8], allow: [[UInt8]], options: [UInt8]?
    ) -> [UInt8] {
        var entries: [[UInt8]] = [[0x01] + text(rpID), [0x02] + bytes(clientDataHash)]
        if !allow.isEmpty { entries.append([0x03] + array(allow)) }
        if let options { entries.append([0x05] + options) }
        return [0x02] + head(5, entries.count) + entries.flatMap { $0 }
    }

    /// A makeCredential: 1 clientDataHash, 2 rp, 3 user, 4 [ES256], then 5 excludeList and the
    /// `extra` entries (already encoded, keys ascending), as Firefox and python-fido2 write it.
    static func makeCredential(
        clientDataHash: [UInt8], rp: [UInt8], user: [UInt8], exclude: [[UInt8]] = [], extra: [[UInt8]] = []
    ) -> [UInt8] {
        var entries: [[UInt8]] = [
            [0x01] + bytes(clientDataHash), [0x02] + rp, [0x03] + user, [0x04] + array([es256Parameters]),
        ]
        if !exclude.isEmpty { entries.append([0x05] + array(exclude)) }
        entries += extra
        return [0x01] + head(5, entries.count) + entries.flatMap { $0 }
    }

    /// The synthetic probe answer the key must give: OK, {1: descriptor, 2: rpIdHash ‖ flags 0 ‖
    /// counter 0, 3: empty signature}.
    static func syntheticAssertion(_ id: [UInt8], rpIDHash: [UInt8] = exampleRPIDHash) -> [UInt8] {
        [0x00, 0xA3, 0x01] + descriptor(id) + [0x02] + bytes(rpIDHash + [0x00, 0x00, 0x00, 0x00, 0x00]) + [0x03, 0x40]
    }
}
