/// Firefox's native messaging framing (MDN "Native messaging", "App side"): each message is a
/// 32-bit length in the machine's byte order, then that many bytes of UTF-8 JSON. Sans-IO: bytes
/// in, messages out.
enum NativeMessageFraming {
    /// The most the browser accepts from a host in one message (1 MB, as Firefox enforces it).
    static let maxOutgoingBytes = 1024 * 1024
    /// The most this host reads from the browser in one message. Firefox may send up to 4 GB; a
    /// WebAuthn or Digital Credentials request is a few kilobytes, and a digital request's data is
    /// bounded by the protocol's 1 MiB envelope, so a larger message is refused (and skipped).
    static let maxIncomingBytes = 1024 * 1024

    /// The frame for `json`: the length in native byte order, then the bytes.
    ///
    /// - Throws: ``NativeMessageFramingError/outgoingTooLarge(size:limit:)`` above ``maxOutgoingBytes``.
    static func frame(_ json: [UInt8]) throws(NativeMessageFramingError) -> [UInt8] {
        guard json.count <= maxOutgoingBytes else {
            throw .outgoingTooLarge(size: json.count, limit: maxOutgoingBytes)
        }
        return withUnsafeBytes(of: UInt32(json.count)) { Array($0) } + json
    }
}

/// What is wrong with a frame.
enum NativeMessageFramingError: Error, Hashable, CustomStringConvertible {
    /// The browser announced a message above ``NativeMessageFraming/maxIncomingBytes``; its bytes
    /// are skipped.
    case incomingTooLarge(size: UInt32, limit: Int)
    /// An answer above ``NativeMessageFraming/maxOutgoingBytes`` (the browser would drop the port).
    case outgoingTooLarge(size: Int, limit: Int)

    var description: String {
        switch self {
        case .incomingTooLarge(let size, let limit): "a message of \(size) bytes is above the limit of \(limit)"
        case .outgoingTooLarge(let size, let limit): "an answer of \(size) bytes is above the limit of \(limit)"
        }
    }
}

/// Splits the browser's byte stream into messages. Feed it what stdin gives with ``append(_:)``,
/// then take messages with ``next()`` until it returns `nil`.
struct NativeMessageFrameDecoder {
    private enum State {
        case length
        case body(Int)
        case skipping(Int)
    }

    private var buffer: [UInt8] = []
    private var start = 0
    private var state = State.length

    /// Adds bytes read from the browser.
    mutating func append(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// Whether bytes of an unfinished message are buffered (at end of input: a truncated message).
    var hasPartialMessage: Bool {
        if case .length = state { buffer.count > start } else { true }
    }

    /// The next whole message, `nil` until more bytes arrive.
    ///
    /// - Throws: ``NativeMessageFramingError/incomingTooLarge(size:limit:)`` once for a message
    ///   above the limit; its body is then skipped as it arrives and decoding goes on after it.
    mutating func next() throws(NativeMessageFramingError) -> [UInt8]? {
        while true {
            let available = buffer.count - start
            switch state {
            case .length:
                guard available >= 4 else { return nil }
                var length: UInt32 = 0
                withUnsafeMutableBytes(of: &length) { raw in
                    for index in 0..<4 { raw[index] = buffer[start + index] }
                }
                consume(4)
                guard length <= NativeMessageFraming.maxIncomingBytes else {
                    state = .skipping(Int(length))
                    throw .incomingTooLarge(size: length, limit: NativeMessageFraming.maxIncomingBytes)
                }
                state = .body(Int(length))
            case .body(let length):
                guard available >= length else { return nil }
                let message = Array(buffer[start..<start + length])
                consume(length)
                state = .length
                return message
            case .skipping(let remaining):
                let skipped = min(remaining, available)
                consume(skipped)
                guard skipped == remaining else {
                    state = .skipping(remaining - skipped)
                    return nil
                }
                state = .length
            }
        }
    }

    private mutating func consume(_ count: Int) {
        start += count
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 64 * 1024 {
            buffer.removeFirst(start)
            start = 0
        }
    }
}
