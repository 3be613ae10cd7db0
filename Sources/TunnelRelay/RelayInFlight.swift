import NIOCore
import NIOWebSocket

/// The bytes of messages one connection has in flight, charged to the relay-wide budget
/// (``RelayConfiguration/maxInFlightBytesTotal``) beyond the connection's allowance:
///
/// - received but not yet decoded into a frame (the WebSocket decoder's buffer),
/// - decoded fragments of a message not yet complete (the fragment aggregator's buffer),
/// - whole messages larger than the allowance, forwarded to the peer and not yet written to its
///   socket.
///
/// A message moves from one stage to the next without growing the charge, so only newly read
/// bytes can need more budget: ``settle()`` after each read reserves it, or reports that it does
/// not fit. Used on the connection's event loop only.
final class RelayInFlight {
    private let accounting: RelayAccounting
    private let allowance: Int
    /// Bytes read and not yet decoded into a frame.
    private var undecoded = 0
    /// Payload bytes of the fragments of the message being reassembled.
    private var fragments = 0
    /// Payload bytes of forwarded messages not yet written to the peer.
    private var writing = 0
    /// What is charged to the relay-wide budget now.
    private var charged = 0
    private var ended = false

    init(accounting: RelayAccounting, allowance: Int) {
        self.accounting = accounting
        self.allowance = allowance
    }

    /// `bytes` were read from the socket.
    func read(_ bytes: Int) {
        undecoded += bytes
    }

    /// The decoder produced `frame`: its bytes on the wire are no longer undecoded; a data frame
    /// that does not end its message stays in flight as a fragment, one that ends it hands the
    /// whole message on (to ``forwarding(_:)``, or to the pre-pairing queue).
    func decoded(_ frame: WebSocketFrame) {
        undecoded = max(0, undecoded - Self.wireSize(of: frame))
        switch frame.opcode {
        case .binary, .text, .continuation:
            fragments = frame.fin ? 0 : fragments + frame.length
        default:
            break
        }
    }

    /// A whole message of `length` bytes was handed to the peer's socket; call ``written(_:)``
    /// once the write completes.
    func forwarding(_ length: Int) {
        writing += length
    }

    /// A forwarded message left the relay (written, or its write failed).
    func written(_ length: Int) {
        defer { accounting.probe?(.messageWritten) }
        guard !ended else { return }
        writing = max(0, writing - length)
        _ = settle()
    }

    /// Brings the relay-wide charge in line with what is held; `false` if the growth does not
    /// fit the budget (nothing more is charged then).
    func settle() -> Bool {
        guard !ended else { return true }
        let wanted = max(0, undecoded + fragments + writing - allowance)
        if wanted > charged {
            guard accounting.reserveInFlight(wanted - charged) else { return false }
        } else if wanted < charged {
            accounting.releaseInFlight(charged - wanted)
        }
        charged = wanted
        return true
    }

    /// The connection is gone: gives back everything it was charged.
    func end() {
        guard !ended else { return }
        ended = true
        accounting.endInFlight(charged)
        charged = 0
    }

    /// The frame's size on the wire: header, masking key and payload (RFC 6455 §5.2).
    static func wireSize(of frame: WebSocketFrame) -> Int {
        let length = frame.length
        let lengthField = length > 65_535 ? 8 : length > 125 ? 2 : 0
        return 2 + lengthField + (frame.maskKey == nil ? 0 : 4) + length
    }
}

/// The relay-wide in-flight budget is used up: the connection is closed with
/// ``RelayCloseCode/tryAgainLater``.
struct RelayInFlightBudgetExhausted: Error {}

/// Sits right before the WebSocket decoder: counts the bytes read into ``RelayInFlight``, and after
/// the decoder and the tunnel handler have taken them, settles the charge; when it does not fit,
/// fires ``RelayInFlightBudgetExhausted`` down the pipeline (once).
final class RelayInFlightMeter: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let inFlight: RelayInFlight
    private var exhausted = false

    init(_ inFlight: RelayInFlight) {
        self.inFlight = inFlight
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !exhausted else { return }
        inFlight.read(Self.unwrapInboundIn(data).readableBytes)
        context.fireChannelRead(data)
        guard !inFlight.settle() else { return }
        exhausted = true
        context.fireErrorCaught(RelayInFlightBudgetExhausted())
    }

    func channelInactive(context: ChannelHandlerContext) {
        inFlight.end()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        inFlight.end()
    }
}
