/// Splits the byte stream of a CTAP 2.3 L2CAP data channel back into messages (protocol.md §3.4,
/// §10.9). A sans-IO value: feed it what the socket read, ask it for messages.
///
/// A message ends at a CRLF. Messages are binary ciphertext, which may itself contain `0d 0a`, so
/// cutting at the first CRLF (libwebauthn's reader) corrupts about one message in 65 536 per byte
/// of length. ``nextMessage(expecting:accepting:)`` therefore offers CRLFs in turn to the caller,
/// who accepts the first candidate that authenticates (the Noise handshake and every transport
/// frame carry an AEAD tag, so a wrong cut fails with overwhelming probability). ``nextMessage()``
/// cuts at the first CRLF, for peers whose messages cannot contain one.
///
/// Anyone nearby may open the channel, and each candidate costs a copy and a trial decryption of
/// its whole length, so the candidates are bounded by what the message can be
/// (``L2CAPMessageShape``): a handshake message has one candidate, the cut at 81 bytes; a
/// transport frame's candidates start at its minimum length, and at most
/// ``maximumCandidates`` are tried. Lengths are checked before anything is copied.
package struct L2CAPMessageDeframer: Sendable {
    /// How many candidate cuts of one transport frame are tried by default before the stream is
    /// refused: 64.
    ///
    /// A ciphertext byte pair is `0d 0a` with probability 2^-16, so even a message of the largest
    /// size (1 MiB, ``L2CAPFraming/defaultMaximumMessageSize``) holds 16 CRLFs on average, and more
    /// than 64 with probability below 10^-19 (Poisson tail); messages of a few kilobytes, the
    /// usual CTAP sizes, hardly ever hold one. So no honest message is refused, and the work per
    /// message stays at most 65 trial decryptions of at most 1 MiB each, where an unbounded search
    /// over a stream of CRLF pairs costs one trial per pair: quadratic in the stream's length.
    /// Only an authenticated peer gets this far (the handshake has one candidate per message).
    package static let defaultMaximumCandidates = 64

    private var buffer: [UInt8] = []
    /// Where the search for the next candidate CRLF resumes: past every candidate already refused
    /// and every byte already searched, so that a long message is scanned once.
    private var searchStart = 0
    /// Candidates offered for the message being read.
    private var candidatesOffered = 0
    /// The largest message accepted.
    package let maximumMessageSize: Int
    /// The most candidate cuts offered for one message of shape ``L2CAPMessageShape/atLeast(_:)``.
    package let maximumCandidates: Int

    /// - Parameters:
    ///   - maximumMessageSize: The largest message (CRLF not counted) to buffer.
    ///   - maximumCandidates: The most candidate cuts offered for one message.
    package init(
        maximumMessageSize: Int = L2CAPFraming.defaultMaximumMessageSize,
        maximumCandidates: Int = defaultMaximumCandidates
    ) {
        self.maximumMessageSize = maximumMessageSize
        self.maximumCandidates = maximumCandidates
    }

    /// Bytes read but not yet returned as a message.
    package var bufferedByteCount: Int { buffer.count }

    /// Appends bytes read from the channel.
    ///
    /// - Throws: ``L2CAPFramingError/messageTooLarge(limit:)`` once the bytes buffered could no
    ///   longer be one message and its CRLF.
    package mutating func append(_ bytes: some Collection<UInt8>) throws(L2CAPFramingError) {
        guard buffer.count + bytes.count <= maximumMessageSize + L2CAPFraming.endOfMessage.count else {
            throw .messageTooLarge(limit: maximumMessageSize)
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next message of `shape`, cut at the first candidate CRLF `accept` takes, or `nil` until
    /// one is buffered.
    ///
    /// Candidates are offered shortest first; a refused candidate is not offered again. `accept`
    /// should judge a copy of the session (sessions are values), so a refusal leaves no trace.
    ///
    /// - Throws: ``L2CAPFramingError/expectedMessageNotFound(length:)`` for
    ///   ``L2CAPMessageShape/exactly(_:)`` once that length and its CRLF are buffered but are not
    ///   an acceptable message (no more bytes can change that);
    ///   ``L2CAPFramingError/tooManyCandidates(limit:)`` for ``L2CAPMessageShape/atLeast(_:)`` when
    ///   a CRLF arrives after ``maximumCandidates`` refused candidates of one message.
    package mutating func nextMessage(
        expecting shape: L2CAPMessageShape, accepting accept: ([UInt8]) -> Bool
    ) throws(L2CAPFramingError) -> [UInt8]? {
        switch shape {
        case .exactly(let length):
            guard buffer.count >= length + L2CAPFraming.endOfMessage.count else { return nil }
            guard Self.hasMarker(in: buffer, at: length) else { throw .expectedMessageNotFound(length: length) }
            let candidate = Array(buffer[..<length])
            guard accept(candidate) else { throw .expectedMessageNotFound(length: length) }
            consume(through: length)
            return candidate
        case .atLeast(let minimumLength):
            while let end = Self.firstMarker(in: buffer, from: max(searchStart, minimumLength)) {
                guard candidatesOffered < maximumCandidates else { throw .tooManyCandidates(limit: maximumCandidates) }
                candidatesOffered += 1
                let candidate = Array(buffer[..<end])
                if accept(candidate) {
                    consume(through: end)
                    return candidate
                }
                searchStart = end + 1
            }
            // Nothing before the last byte can start a CRLF now (it may be a CR whose LF is to come).
            searchStart = max(searchStart, buffer.count - 1)
            return nil
        }
    }

    /// The next message, cut at the first CRLF, or `nil` until one is buffered.
    package mutating func nextMessage() -> [UInt8]? {
        guard let end = Self.firstMarker(in: buffer, from: 0) else { return nil }
        let message = Array(buffer[..<end])
        consume(through: end)
        return message
    }

    /// The channel closed. Fine between messages.
    ///
    /// - Throws: ``L2CAPFramingError/truncatedMessage(bufferedByteCount:)`` if bytes are left over.
    package func endOfStream() throws(L2CAPFramingError) {
        guard buffer.isEmpty else { throw .truncatedMessage(bufferedByteCount: buffer.count) }
    }

    /// Drops a message that ends at `end` and its CRLF; the next message starts afresh.
    private mutating func consume(through end: Int) {
        buffer.removeFirst(end + L2CAPFraming.endOfMessage.count)
        searchStart = 0
        candidatesOffered = 0
    }

    private static func hasMarker(in bytes: [UInt8], at index: Int) -> Bool {
        index >= 0 && index + 1 < bytes.count && bytes[index] == 0x0D && bytes[index + 1] == 0x0A
    }

    private static func firstMarker(in bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + 1 < bytes.count {
            if bytes[index] == 0x0D && bytes[index + 1] == 0x0A { return index }
            index += 1
        }
        return nil
    }
}
