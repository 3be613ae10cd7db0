/// BLE service data split into the 20-byte encrypted advert and an optional CTAP 2.3 suffix
/// (protocol.md §3.4).
///
/// The suffix (a CBOR map holding the L2CAP PSM) follows the 20 bytes and is not covered by the
/// tag. This type only splits; parsing the suffix is the CBOR layer's job. The current Chromium
/// client accepts exactly 20 bytes, so a strict client passes the service data to
/// ``EIDKey/decrypt(_:)`` unsplit.
package struct AdvertServiceData: Hashable, Sendable {
    /// Length of the encrypted advert: 16-byte ciphertext || 4-byte tag.
    package static let advertByteCount = 20

    /// The first 20 bytes: ciphertext and tag.
    package let advert: [UInt8]
    /// Everything after the first 20 bytes; empty for a plain advert.
    package let suffix: [UInt8]

    /// Splits `serviceData`.
    ///
    /// - Throws: ``AdvertError/invalidLength(_:)`` if it is shorter than 20 bytes.
    package init(_ serviceData: some Collection<UInt8>) throws(AdvertError) {
        let bytes = Array(serviceData)
        guard bytes.count >= Self.advertByteCount else { throw .invalidLength(bytes.count) }
        advert = Array(bytes[..<Self.advertByteCount])
        suffix = Array(bytes[Self.advertByteCount...])
    }
}
