/// Why BLE service data is not an advert for a given key (protocol.md §3).
///
/// On the wire every case means the same thing, "not mine"; the case only says which check failed
/// first. Cases are listed in the order `EIDKey/decrypt(_:)` checks them.
public enum AdvertError: Error, Equatable, Sendable {
    /// The service data is not exactly 20 bytes, or an EID plaintext not exactly 16. Carries the length.
    case invalidLength(Int)
    /// The truncated HMAC tag does not verify: the advert was not made with this key.
    case authenticationFailed
    /// Plaintext byte 0, reserved for future use, is not `00`. Carries its value.
    case reservedByteNonZero(UInt8)
    /// The tunnel-server domain ID is one of the unassigned values 2–255. Carries it.
    case unassignedDomain(UInt16)
}
