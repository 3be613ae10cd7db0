/// The payload of a type-`02` frame: a CBOR map with padding at key 0 and linking info at key 1
/// (protocol.md §7.4). Other keys are ignored.
///
/// A Chromium phone sends one update right after the post-handshake message in every QR session,
/// padded so that its plaintext is exactly 512 bytes after the crypter's padding, whether or not
/// it carries linking info. ``frame(padded:)`` reproduces that.
package struct UpdateMessage: Hashable, Sendable {
    /// Size the Chromium phone pads the update plaintext to, crypter padding included.
    package static let paddedPlaintextByteCount = 512
    /// Chromium's padding length without linking: 512 − 20.
    static let paddingWithoutLinking = 492

    /// Key 1, still as CBOR (see ``LinkingInfo``), or `nil` if the update carries none.
    package let linking: CBORValue?

    /// An update carrying `linking` (or nothing).
    package init(linking: LinkingInfo?) {
        self.linking = linking?.cborValue
    }

    /// Parses the payload of an update frame (the bytes after `02`).
    ///
    /// Checks, in order: strict CBOR; a map; key 1, if present, a map.
    ///
    /// - Throws: ``HybridMessageError``.
    package init(decoding payload: some Collection<UInt8>) throws(HybridMessageError) {
        let value: CBORValue
        do {
            value = try CBORDecoder.decode(payload)
        } catch {
            throw .cbor(error)
        }
        guard value.mapEntries != nil else { throw .notAMap }
        if let field = value[intKey: 1] {
            guard field.mapEntries != nil else { throw .wrongType(key: 1) }
            linking = field
        } else {
            linking = nil
        }
    }

    /// The frame to send.
    ///
    /// - Parameter padded: Add Chromium's zero padding at key 0:
    ///   `512 − 16 − 1 − 3 − len(CBOR({1: linking}))` bytes, or 492 without linking (never
    ///   negative), so that the crypter pads the plaintext to exactly 512 bytes and the ciphertext
    ///   is 528 bytes.
    package func frame(padded: Bool = true) -> HybridFrame {
        var entries: [CBORMapEntry] = []
        if padded { entries.append(CBORMapEntry(0, .bytes([UInt8](repeating: 0, count: paddingLength)))) }
        if let linking { entries.append(CBORMapEntry(1, linking)) }
        return HybridFrame(type: .update, payload: CBOREncoder.encode(.map(entries)))
    }

    /// Chromium's padding length for this update.
    var paddingLength: Int {
        guard let linking else { return Self.paddingWithoutLinking }
        let linkingMapLength = CBOREncoder.encode([1: linking]).count
        return max(0, Self.paddedPlaintextByteCount - 16 - 1 - 3 - linkingMapLength)
    }
}
