import Crypto
import HybridCore

/// The rewrites a request gets before it goes to a phone, all found with real phones and hosts;
/// everything else is forwarded unchanged (docs/security-key.md "What the key does with each request").
///
/// - `transports` is removed from every allow-list and exclude-list descriptor: browsers add the
///   key's own transport (`usb`), and an iPhone then answers "No passkeys found"
///   (cable-uhid-bridge's finding).
/// - makeCredential: `rp.name` is set to the RP ID and `user.displayName` to `user.name` when
///   missing: iOS refuses a request without them (ucabled's finding; CTAP makes them optional).
/// - makeCredential for an RP ID starting `ssh:`: OpenSSH sends the same user handle for every
///   key, and iCloud Keychain keeps one passkey per RP ID and user handle, so each
///   `ssh-keygen -t ecdsa-sk` overwrote the previous key. The user handle becomes
///   SHA-256(clientDataHash ‖ original user handle): ssh-keygen's challenge is 32 fresh random
///   bytes per key, so handles do not collide; it is derived rather than random so that a
///   program repeating the identical request gets the identical rewrite (and the sans-IO policy
///   needs no randomness). OpenSSH never reads the handle back through the key.
enum PhoneRequestNormalizer {
    static let sshRPIDPrefix = "ssh:"

    static func makeCredential(_ map: CBORValue, rewrites: inout [String]) -> CBORValue {
        var map = map
        map = strippingTransports(map, key: 5, rewrites: &rewrites)
        if var rp = map[intKey: 2], let rpID = rp[textKey: "id"]?.textValue {
            if rp[textKey: "name"] == nil {
                rp = rp.setting("name", to: .text(rpID))
                rewrites.append("rp.name set to the RP ID")
                map = map.setting(2, to: rp)
            }
            if rpID.hasPrefix(sshRPIDPrefix), let user = map[intKey: 3], let handle = user[textKey: "id"]?.bytesValue,
                let clientDataHash = map[intKey: 1]?.bytesValue
            {
                let unique = Array(SHA256.hash(data: clientDataHash + handle))
                map = map.setting(3, to: user.setting("id", to: .bytes(unique)))
                rewrites.append("ssh user handle made unique per key")
            }
        }
        if var user = map[intKey: 3], user[textKey: "displayName"] == nil, let name = user[textKey: "name"]?.textValue {
            user = user.setting("displayName", to: .text(name))
            rewrites.append("user.displayName set to user.name")
            map = map.setting(3, to: user)
        }
        return map
    }

    static func getAssertion(_ map: CBORValue, rewrites: inout [String]) -> CBORValue {
        strippingTransports(map, key: 3, rewrites: &rewrites)
    }

    private static func strippingTransports(_ map: CBORValue, key: Int64, rewrites: inout [String]) -> CBORValue {
        guard let list = map[intKey: key]?.arrayValue else { return map }
        var stripped = false
        let cleaned = list.map { descriptor -> CBORValue in
            guard let entries = descriptor.mapEntries, entries.contains(where: { $0.key == "transports" }) else {
                return descriptor
            }
            stripped = true
            return .map(entries.filter { $0.key != "transports" })
        }
        guard stripped else { return map }
        rewrites.append("transports removed from the \(key == 3 ? "allow" : "exclude") list")
        return map.setting(.int(key), to: .array(cleaned))
    }
}

extension CBORValue {
    /// This map with `key` set to `value` (replaced in place, or appended). Not a map: unchanged.
    func setting(_ key: CBORValue, to value: CBORValue) -> CBORValue {
        guard var entries = mapEntries else { return self }
        if let index = entries.firstIndex(where: { $0.key == key }) {
            entries[index].value = value
        } else {
            entries.append(CBORMapEntry(key, value))
        }
        return .map(entries)
    }
}
