/// A request or response carried over an established hybrid session (protocol.md §7.3).
///
/// A reply always has the type of its request.
public enum HybridPayload: Hashable, Sendable {
    /// Message type 01: a CTAP2 command byte and CBOR (request), or a status byte and CBOR (response).
    case ctap([UInt8])
    /// Message type 03: UTF-8 JSON, for digital-credential requests.
    case json([UInt8])

    /// The bytes after the message-type byte.
    public var bytes: [UInt8] {
        switch self {
        case .ctap(let bytes), .json(let bytes): return bytes
        }
    }

    /// The frame type that carries it.
    public var messageType: HybridMessageType {
        switch self {
        case .ctap: return .ctap
        case .json: return .json
        }
    }

    /// The post-handshake feature a phone must offer to be sent it (§7.2).
    package var feature: HybridFeature {
        switch self {
        case .ctap: return .ctap
        case .json: return .digitalCredentials
        }
    }

    /// The frame that carries it.
    package var frame: HybridFrame { HybridFrame(type: messageType, payload: bytes) }

    /// The payload of a CTAP or JSON frame (any other frame type is read as CTAP).
    init(_ frame: HybridFrame) {
        self = frame.type == .json ? .json(frame.payload) : .ctap(frame.payload)
    }
}
