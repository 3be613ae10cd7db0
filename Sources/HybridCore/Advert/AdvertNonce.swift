/// The 10 random bytes at offset 1 of an EID plaintext, chosen afresh for each advert session.
public struct AdvertNonce: Hashable, Sendable {
    /// Size in bytes.
    public static let byteCount = 10
    /// The raw bytes, always ``byteCount`` long.
    public let bytes: [UInt8]

    /// Wraps `bytes`, or returns `nil` unless they are exactly 10 bytes long.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = Array(bytes)
    }
}
