/// A capability a phone announces in post-handshake key 3 (protocol.md §7.2).
public enum HybridFeature: String, Sendable, Hashable, CaseIterable {
    /// `"ctap"`: CTAP2 over message type `01`.
    case ctap = "ctap"
    /// `"dc"`: digital credentials over message type `03`.
    case digitalCredentials = "dc"
}

/// The first message from the phone, sent at phone write sequence 0 right after the handshake
/// (protocol.md §7.2, §10.2, SCHEMA.md §4.18). It has no message-type byte.
///
/// Revision 1 is a bare CBOR map `{1: getInfo, 2: legacy linking, 3: features}`; revision 0 is the
/// same kind of map padded with `RevisionZeroPadding`. Parsing is lenient: key 3 may be absent
/// (meaning `["ctap"]`), unknown features and non-text entries are ignored, unknown keys too.
public struct PostHandshakeMessage: Hashable, Sendable {
    /// How the message was (or will be) framed.
    package let revision: HybridProtocolRevision
    /// Key 1: the `authenticatorGetInfo` CBOR map without the status byte, or `nil`.
    public let getInfo: [UInt8]?
    /// The text entries of key 3 in order, known or not; `nil` if key 3 is absent.
    public let features: [String]?
    /// Key 2: linking info in its legacy place, still as CBOR (see ``LinkingInfo``), or `nil`.
    public let linking: CBORValue?

    /// The features that count: `[.ctap]` when key 3 is absent, else the known entries of
    /// ``features`` in order.
    public var effectiveFeatures: [HybridFeature] { Self.effectiveFeatures(features) }

    private static func effectiveFeatures(_ features: [String]?) -> [HybridFeature] {
        guard let features else { return [.ctap] }
        return features.compactMap(HybridFeature.init(rawValue:))
    }

    /// A message for the phone to send.
    ///
    /// - Parameters:
    ///   - getInfo: The getInfo response map without the status byte; required when `features`
    ///     holds `.ctap`.
    ///   - features: Written sorted at key 3 in revision 1 (Chromium sends `["ctap"]`).
    ///   - linking: Legacy linking map for key 2; current phones send linking in an
    ///     ``UpdateMessage`` instead.
    ///   - revision: `.one` unless imitating a legacy phone, which sends no key 3.
    package init(
        getInfo: [UInt8]?, features: [HybridFeature] = [.ctap], linking: CBORValue? = nil,
        revision: HybridProtocolRevision = .one
    ) {
        self.revision = revision
        self.getInfo = getInfo
        self.linking = linking
        switch revision {
        case .zero: self.features = nil
        case .one: self.features = Set(features.map(\.rawValue)).sorted()
        }
    }

    /// The map this message writes.
    package var cborValue: CBORValue {
        var entries: [CBORMapEntry] = []
        if let getInfo { entries.append(CBORMapEntry(1, .bytes(getInfo))) }
        if let linking { entries.append(CBORMapEntry(2, linking)) }
        if let features { entries.append(CBORMapEntry(3, .array(features.map { .text($0) }))) }
        return .map(entries)
    }

    /// The plaintext to encrypt: the canonical map, padded with the 16-bit trailer in revision 0.
    package func encoded() -> [UInt8] {
        let cbor = CBOREncoder.encode(cborValue)
        switch revision {
        case .zero: return RevisionZeroPadding.pad(cbor, trailer: .sixteenBit)
        case .one: return cbor
        }
    }

    /// Parses the decrypted plaintext as the newest Chromium client does.
    ///
    /// Checks, in order: one strict CBOR item (revision 1), else a padded map (revision 0), else
    /// `cbor`; a map; key 3, if present, an array; if `"ctap"` is effective, key 1 present and a
    /// byte string; key 2, if present, a map. Without `"ctap"`, key 1 is read only if it is a byte
    /// string.
    ///
    /// - Throws: ``HybridMessageError``.
    package init(decoding plaintext: some Collection<UInt8>) throws(HybridMessageError) {
        let bytes = Array(plaintext)
        let value: CBORValue
        do {
            value = try CBORDecoder.decode(bytes)
            revision = .one
        } catch {
            guard let unpadded = try? RevisionZeroPadding.unpad(bytes) else { throw .cbor(error) }
            value = unpadded.map
            revision = .zero
        }
        guard value.mapEntries != nil else { throw .notAMap }

        var features: [String]? = nil
        if let field = value[intKey: 3] {
            guard let elements = field.arrayValue else { throw .wrongType(key: 3) }
            features = elements.compactMap(\.textValue)
        }
        self.features = features

        if Self.effectiveFeatures(features).contains(.ctap) {
            guard let field = value[intKey: 1] else { throw .missingKey(1) }
            guard let getInfo = field.bytesValue else { throw .wrongType(key: 1) }
            self.getInfo = getInfo
        } else {
            self.getInfo = value[intKey: 1]?.bytesValue
        }

        if let field = value[intKey: 2] {
            guard field.mapEntries != nil else { throw .wrongType(key: 2) }
            linking = field
        } else {
            linking = nil
        }
    }
}
