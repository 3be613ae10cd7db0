import Crypto

/// Encrypts and decrypts the messages that follow the Noise handshake (protocol.md §7.1, §10.3).
/// Chromium: `Crypter`.
///
/// Each direction has its own key and its own sequence counter, both starting at 0. A message is
/// padded to a multiple of 32 bytes (``TransportPadding``) and sealed with AES-256-GCM:
/// - new construction (the spec's, the default): nonce = 8 zero bytes || BE32(seq), no AD;
/// - old construction (early Chromium; only for a client's fallback, §10.3, and vectors): nonce =
///   LE32(seq) || 8 zero bytes, AD = `02`.
///
/// A sequence number above 2^24 − 1 fails every operation. A failed open does not advance the
/// read counter; an open that authenticates advances it even if the padding then fails.
package struct TransportCrypter: Sendable {
    /// How the nonce and additional data are formed.
    package enum Construction: Sendable, Equatable {
        /// Big-endian counter at the end of the nonce, empty AD: "the format in the spec".
        case new
        /// Little-endian counter at the start of the nonce, AD = `02`: pre-2022 Chromium.
        case old
    }

    /// The largest usable sequence number, 2^24 − 1.
    package static let maxSequence: UInt32 = (1 << 24) - 1

    private let readKey: SymmetricKey
    private let writeKey: SymmetricKey
    /// The construction both directions use.
    package let construction: Construction
    /// The sequence number the next ``decrypt(_:)`` uses.
    package private(set) var readSequence: UInt32 = 0
    /// The sequence number the next ``encrypt(_:)`` uses.
    package private(set) var writeSequence: UInt32 = 0

    /// A crypter with both counters at 0.
    ///
    /// - Parameters:
    ///   - readKey: The peer's write key (32 bytes).
    ///   - writeKey: This side's write key (32 bytes).
    ///   - construction: `.new` unless talking to a pre-2022 Chromium phone (§10.3).
    package init(readKey: SymmetricKey, writeKey: SymmetricKey, construction: Construction = .new) {
        precondition(readKey.bitCount == 256 && writeKey.bitCount == 256, "transport keys are 32 bytes")
        self.readKey = readKey
        self.writeKey = writeKey
        self.construction = construction
    }

    /// The same keys with both counters back at 0 and `construction`: what a client switches to
    /// when the first message only opens with the old construction (§10.3).
    package func restarted(with construction: Construction) -> TransportCrypter {
        TransportCrypter(readKey: readKey, writeKey: writeKey, construction: construction)
    }

    /// A crypter whose counters start elsewhere; lets tests reach the sequence limit quickly.
    init(readKey: SymmetricKey, writeKey: SymmetricKey, readSequence: UInt32, writeSequence: UInt32) {
        self.init(readKey: readKey, writeKey: writeKey)
        self.readSequence = readSequence
        self.writeSequence = writeSequence
    }

    /// **Conformance only.** `false` imitates a careless peer that ignores the limit: ``encrypt(_:)``
    /// and ``decrypt(_:)`` go on past ``maxSequence`` (to 2^32 − 2, so that the counter never
    /// wraps). The judge seals one message so, and its broken phone opens one so (protocol.md §7.1).
    package var enforcesSequenceLimit = true

    /// The largest sequence number this crypter uses.
    private var sequenceLimit: UInt32 { enforcesSequenceLimit ? Self.maxSequence : .max - 1 }

    /// Pads and encrypts `message` with the next write sequence number, then advances it.
    ///
    /// - Throws: ``TransportError/sequenceLimitReached``.
    package mutating func encrypt(_ message: some Collection<UInt8>) throws(TransportError) -> [UInt8] {
        guard writeSequence <= sequenceLimit else { throw .sequenceLimitReached }
        let ciphertext = Self.sealUnchecked(message, key: writeKey, sequence: writeSequence, construction: construction)
        writeSequence += 1
        return ciphertext
    }

    /// Decrypts and unpads `ciphertext` with the next read sequence number.
    ///
    /// - Throws: ``TransportError``. On ``TransportError/sequenceLimitReached`` or
    ///   ``TransportError/authenticationFailed`` the counter does not move; on
    ///   ``TransportError/invalidPadding`` it has already advanced.
    package mutating func decrypt(_ ciphertext: some Collection<UInt8>) throws(TransportError) -> [UInt8] {
        try TransportPadding.unpad(decryptPadded(ciphertext))
    }

    /// Decrypts `ciphertext` with the next read sequence number and advances it, leaving the
    /// padding on: for observers that judge how the peer padded (hybrid-conformance).
    ///
    /// - Throws: ``TransportError/sequenceLimitReached`` or ``TransportError/authenticationFailed``;
    ///   the counter then does not move.
    package mutating func decryptPadded(_ ciphertext: some Collection<UInt8>) throws(TransportError) -> [UInt8] {
        guard readSequence <= sequenceLimit else { throw .sequenceLimitReached }
        let padded = try Self.openUnchecked(
            ciphertext, key: readKey, sequence: readSequence, construction: construction)
        readSequence += 1
        return padded
    }

    /// Single-shot encryption of one message, for vectors and the legacy construction.
    ///
    /// - Throws: ``TransportError/sequenceLimitReached`` if `sequence` > ``maxSequence``.
    package static func seal(
        _ message: some Collection<UInt8>,
        key: SymmetricKey,
        sequence: UInt32,
        construction: Construction
    ) throws(TransportError) -> [UInt8] {
        guard sequence <= maxSequence else { throw .sequenceLimitReached }
        return sealUnchecked(message, key: key, sequence: sequence, construction: construction)
    }

    private static func sealUnchecked(
        _ message: some Collection<UInt8>, key: SymmetricKey, sequence: UInt32, construction: Construction
    ) -> [UInt8] {
        let (nonce, ad) = nonceAndAD(sequence: sequence, construction: construction)
        return AEAD.seal(TransportPadding.pad(message), key: key, nonce: nonce, authenticating: ad)
    }

    /// Single-shot decryption of one message, for vectors and the legacy construction.
    ///
    /// - Throws: ``TransportError``, checked in the order range, authentication, padding.
    package static func open(
        _ ciphertext: some Collection<UInt8>,
        key: SymmetricKey,
        sequence: UInt32,
        construction: Construction
    ) throws(TransportError) -> [UInt8] {
        try TransportPadding.unpad(openPadded(ciphertext, key: key, sequence: sequence, construction: construction))
    }

    private static func openPadded(
        _ ciphertext: some Collection<UInt8>,
        key: SymmetricKey,
        sequence: UInt32,
        construction: Construction
    ) throws(TransportError) -> [UInt8] {
        guard sequence <= maxSequence else { throw .sequenceLimitReached }
        return try openUnchecked(ciphertext, key: key, sequence: sequence, construction: construction)
    }

    private static func openUnchecked(
        _ ciphertext: some Collection<UInt8>, key: SymmetricKey, sequence: UInt32, construction: Construction
    ) throws(TransportError) -> [UInt8] {
        let (nonce, ad) = nonceAndAD(sequence: sequence, construction: construction)
        guard let padded = AEAD.open(ciphertext, key: key, nonce: nonce, authenticating: ad) else {
            throw .authenticationFailed
        }
        return padded
    }

    private static func nonceAndAD(sequence: UInt32, construction: Construction) -> (nonce: [UInt8], ad: [UInt8]) {
        switch construction {
        case .new:
            let counter: [UInt8] = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: sequence >> $0) }
            return ([UInt8](repeating: 0, count: 8) + counter, [])
        case .old:
            let counter: [UInt8] = [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: sequence >> $0) }
            return (counter + [UInt8](repeating: 0, count: 8), [0x02])
        }
    }
}
