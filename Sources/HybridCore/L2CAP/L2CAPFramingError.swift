/// Why bytes on a CTAP 2.3 L2CAP data channel could not be framed or deframed (protocol.md §3.4,
/// §10.9).
public enum L2CAPFramingError: Error, Hashable, Sendable {
    /// More bytes arrived without one acceptable message than a message may hold. Carries the limit
    /// (message bytes, end-of-message marker not counted).
    case messageTooLarge(limit: Int)
    /// The channel closed in the middle of a message. Carries the number of bytes left over.
    case truncatedMessage(bufferedByteCount: Int)
    /// The L2CAP send MTU is below the LE minimum of 23 bytes: the channel is not set up yet (phones
    /// time out reassembling a first message cut into 16-byte pieces, §10.9). Carries it.
    case sendMTUTooSmall(Int)
    /// A message of exactly this length (a Noise handshake message, 81 bytes) was expected, and the
    /// bytes buffered do not begin with an acceptable one followed by CRLF. Carries the length.
    case expectedMessageNotFound(length: Int)
    /// This many candidate cuts of one message were refused, and another CRLF arrived: the peer
    /// is not sending messages this session can open. Carries the limit.
    case tooManyCandidates(limit: Int)
    /// The peer sent more bytes than the reader holds for the session before it takes them.
    /// Carries the limit in bytes.
    case receiveQueueFull(limit: Int)
}
