/// The protocol revision of a session (protocol.md §10.2).
package enum HybridProtocolRevision: Int, Sendable, Hashable, CaseIterable {
    /// Legacy: padded post-handshake map, no message-type byte, no shutdown.
    case zero = 0
    /// Current: bare post-handshake map and a type byte on every later message.
    case one = 1
}

/// The type byte that starts every message after the post-handshake message in revision ≥ 1
/// (protocol.md §7.3).
public enum HybridMessageType: UInt8, Sendable, Hashable, CaseIterable {
    /// `00`: the client will send nothing more. Client → phone only.
    case shutdown = 0x00
    /// `01`: a CTAP2 command (client → phone) or status byte plus response (phone → client).
    case ctap = 0x01
    /// `02`: an update message, a CBOR map (`UpdateMessage`).
    case update = 0x02
    /// `03`: UTF-8 JSON, for digital-credential requests.
    case json = 0x03
}

/// One decrypted, unpadded transport message after the post-handshake message: a type and its
/// payload (protocol.md §7.3, SCHEMA.md §4.17).
///
/// In revision 1 the first byte is the ``HybridMessageType``. Revision 0 has no type byte: every
/// message is CTAP and the payload is the whole plaintext.
package struct HybridFrame: Hashable, Sendable {
    /// What the payload is.
    package let type: HybridMessageType
    /// The bytes after the type byte.
    package let payload: [UInt8]

    /// A frame of `type` carrying `payload`.
    package init(type: HybridMessageType, payload: some Collection<UInt8>) {
        self.type = type
        self.payload = Array(payload)
    }

    /// Splits a decrypted plaintext.
    ///
    /// - Parameters:
    ///   - plaintext: The crypter's output.
    ///   - revision: The session's protocol revision.
    /// - Throws: ``HybridMessageError/emptyFrame`` if a revision-1 plaintext is empty,
    ///   ``HybridMessageError/unknownMessageType(_:)`` if its first byte is above `03`.
    package init(decoding plaintext: some Collection<UInt8>, revision: HybridProtocolRevision)
        throws(HybridMessageError)
    {
        switch revision {
        case .zero:
            self.init(type: .ctap, payload: plaintext)
        case .one:
            guard let first = plaintext.first else { throw .emptyFrame }
            guard let type = HybridMessageType(rawValue: first) else { throw .unknownMessageType(first) }
            self.init(type: type, payload: plaintext.dropFirst())
        }
    }

    /// The plaintext to hand to the crypter.
    ///
    /// Revision 0 can carry only CTAP messages; encoding any other type for it is a programming
    /// error.
    package func encoded(revision: HybridProtocolRevision) -> [UInt8] {
        switch revision {
        case .zero:
            precondition(type == .ctap, "revision 0 has no message types other than CTAP")
            return payload
        case .one:
            return [type.rawValue] + payload
        }
    }

    /// The shutdown frame, `00`, which the client sends after its last request.
    package static let shutdown = HybridFrame(type: .shutdown, payload: [])
}
