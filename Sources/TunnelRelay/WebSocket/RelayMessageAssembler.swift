import NIOCore
import NIOWebSocket

/// Turns frames into whole messages (RFC 6455 §5.4) with the rules of NIO's
/// `NIOWebSocketFrameAggregator`: at most ``maxFragments`` fragments and `maxMessageSize` payload
/// bytes per message; control frames pass between fragments; after an error the partial message
/// is dropped. A message in one frame passes through untouched (still masked); a fragmented one is
/// unmasked into one buffer as its fragments arrive. Sans-IO.
struct RelayMessageAssembler {
    /// The most fragments one message may have.
    static let maxFragments = 1024

    private let maxMessageSize: Int
    /// The opcode of the fragmented message being assembled, if one is open.
    private var opcode: WebSocketOpcode?
    private var fragmentCount = 0
    /// The unmasked payload so far of the fragmented message being assembled.
    private var assembled: ByteBuffer?

    /// Payload bytes held for the message being assembled.
    var heldBytes: Int { assembled?.readableBytes ?? 0 }

    init(maxMessageSize: Int) {
        self.maxMessageSize = maxMessageSize
    }

    /// The whole message or control frame that `frame` completes, or `nil` for a fragment that
    /// does not end its message.
    mutating func take(_ frame: RelayInboundFrame) throws(RelayFrameError) -> RelayInboundFrame? {
        do {
            return try assemble(frame)
        } catch {
            reset()
            throw error
        }
    }

    private mutating func assemble(_ frame: RelayInboundFrame) throws(RelayFrameError) -> RelayInboundFrame? {
        switch frame.opcode {
        case .continuation:
            guard let opcode else { throw .continuationWithoutStart }
            try append(frame)
            guard frame.fin else { return nil }
            let message = RelayInboundFrame(fin: true, opcode: opcode, maskKey: nil, payload: assembled ?? ByteBuffer())
            reset()
            return message
        case .binary, .text:
            guard opcode == nil else { throw .messageNotFinished }
            guard !frame.fin else { return frame }
            opcode = frame.opcode
            try append(frame)
            return nil
        default:
            return frame
        }
    }

    private mutating func append(_ frame: RelayInboundFrame) throws(RelayFrameError) {
        fragmentCount += 1
        guard fragmentCount <= Self.maxFragments else { throw .tooManyFragments }
        guard heldBytes + frame.length <= maxMessageSize else { throw .messageTooLarge }
        var payload = assembled ?? ByteBuffer()
        assembled = nil  // one reference while appending: no copy-on-write
        payload.writeUnmasked(frame.payload, maskKey: frame.maskKey)
        assembled = payload
    }

    private mutating func reset() {
        opcode = nil
        fragmentCount = 0
        assembled = nil
    }
}
