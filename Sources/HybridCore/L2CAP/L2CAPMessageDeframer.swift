/// Splits the byte stream of a CTAP 2.3 L2CAP data channel back into messages (protocol.md §3.4,
/// §10.9). A sans-IO value: feed it what the socket read, ask it for messages.
///
/// A message ends at a CRLF. Messages are binary ciphertext, which may itself contain `0d 0a`, so
/// cutting at the first CRLF (libwebauthn's reader) corrupts about one message in 65 536 per byte
/// of length. ``nextMessage(accepting:)`` therefore offers each CRLF in turn to the caller, who
/// accepts the first candidate that authenticates (the Noise handshake and every transport frame
/// carry an AEAD tag, so a wrong cut fails with overwhelming probability). ``nextMessage()``
/// cuts at the first CRLF, for peers whose messages cannot contain one.
package struct L2CAPMessageDeframer: Sendable {
    private var buffer: [UInt8] = []
    /// Where the search for the next candidate CRLF resumes: past every candidate already refused.
    private var searchStart = 0
    /// The largest message accepted.
    package let maximumMessageSize: Int

    /// - Parameter maximumMessageSize: The largest message (CRLF not counted) to buffer.
    package init(maximumMessageSize: Int = L2CAPFraming.defaultMaximumMessageSize) {
        self.maximumMessageSize = maximumMessageSize
    }

    /// Bytes read but not yet returned as a message.
    package var bufferedByteCount: Int { buffer.count }

    /// Appends bytes read from the channel.
    ///
    /// - Throws: ``L2CAPFramingError/messageTooLarge(limit:)`` once the bytes buffered could no
    ///   longer be one message and its CRLF.
    package mutating func append(_ bytes: some Collection<UInt8>) throws(L2CAPFramingError) {
        buffer.append(contentsOf: bytes)
        guard buffer.count <= maximumMessageSize + L2CAPFraming.endOfMessage.count else {
            throw .messageTooLarge(limit: maximumMessageSize)
        }
    }

    /// The next message, cut at the first CRLF `accept` takes, or `nil` until one is buffered.
    ///
    /// Candidates are offered shortest first; a refused candidate is not offered again. `accept`
    /// should judge a copy of the session (sessions are values), so a refusal leaves no trace.
    package mutating func nextMessage<E: Error>(accepting accept: ([UInt8]) throws(E) -> Bool) throws(E) -> [UInt8]? {
        while let end = Self.firstMarker(in: buffer, from: searchStart) {
            let candidate = Array(buffer[..<end])
            if try accept(candidate) {
                buffer.removeFirst(end + L2CAPFraming.endOfMessage.count)
                searchStart = 0
                return candidate
            }
            searchStart = end + 1
        }
        return nil
    }

    /// The next message, cut at the first CRLF, or `nil` until one is buffered.
    package mutating func nextMessage() -> [UInt8]? {
        nextMessage(accepting: { (_: [UInt8]) -> Bool in true })
    }

    /// The channel closed. Fine between messages.
    ///
    /// - Throws: ``L2CAPFramingError/truncatedMessage(bufferedByteCount:)`` if bytes are left over.
    package func endOfStream() throws(L2CAPFramingError) {
        guard buffer.isEmpty else { throw .truncatedMessage(bufferedByteCount: buffer.count) }
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
