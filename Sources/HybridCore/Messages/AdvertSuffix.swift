/// The CTAP 2.3 CBOR map a phone may append after the 20-byte advert: `{1: PSM}`, the L2CAP
/// channel to connect to (protocol.md §3.4, SCHEMA.md §4.7). It is not covered by the advert tag.
///
/// Follows libwebauthn: the PSM is key 1 (not key 0 as one Firefox branch reads it), and a key 1
/// that is not an unsigned integer ≤ 0xFFFF means "no PSM" rather than an error.
public struct AdvertSuffix: Hashable, Sendable {
    /// The L2CAP PSM, or `nil` if key 1 is absent or not a 16-bit unsigned integer.
    public let psm: UInt16?

    /// A suffix announcing `psm`.
    package init(psm: UInt16?) {
        self.psm = psm
    }

    /// Parses the bytes after the first 20 bytes of service data.
    ///
    /// Checks, in order: strict CBOR; a map. Key 1 is read if it fits; other keys are ignored.
    ///
    /// - Throws: ``HybridMessageError/cbor(_:)`` or ``HybridMessageError/notAMap``.
    package init(decoding suffix: some Collection<UInt8>) throws(HybridMessageError) {
        let value: CBORValue
        do {
            value = try CBORDecoder.decode(suffix)
        } catch {
            throw .cbor(error)
        }
        guard value.mapEntries != nil else { throw .notAMap }
        psm = value[intKey: 1]?.intValue.flatMap(UInt16.init(exactly:))
    }

    /// The canonical map: `{1: psm}`, or `{}` without a PSM.
    package var encoded: [UInt8] {
        guard let psm else { return CBOREncoder.encode([:]) }
        return CBOREncoder.encode([1: .int(Int64(psm))])
    }
}
