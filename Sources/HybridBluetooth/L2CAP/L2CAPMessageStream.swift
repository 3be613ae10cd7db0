import Foundation
import HybridCore
import HybridDBus
import HybridThreads
import Synchronization

/// Hybrid messages over one ``L2CAPChannel``, for async code (protocol.md §3.4, §10.9): each
/// message goes out framed with CRLF in writes of at most the send MTU, and comes back through an
/// ``L2CAPMessageDeframer`` that lets the caller pick the right CRLF.
///
/// A thread of its own reads SDUs (the channel blocks) into a queue of at most
/// ``receiveQueueLimit`` bytes; writes run on a serial queue. Owned by one task:
/// ``receive(expecting:accepting:)`` is `mutating`. ``close()`` ends the reader.
package struct L2CAPMessageStream {
    /// The most bytes read and not yet taken by ``receive(expecting:accepting:)`` by default: one
    /// message of the largest size and its CRLF. A peer sends at most a few messages before it
    /// waits for an answer, so only a flood fills it; the channel is then dropped.
    package static let defaultReceiveQueueLimit =
        L2CAPFraming.defaultMaximumMessageSize + L2CAPFraming.endOfMessage.count

    private let channel: L2CAPChannel
    private let writer: DispatchQueue
    private var sdus: AsyncThrowingStream<[UInt8], any Error>.AsyncIterator
    private let stopped: WakeSignal
    private let readerEnded = OneShot<Void>()
    private var deframer = L2CAPMessageDeframer()
    private let queue: ReceiveQueue

    /// Starts reading `channel`.
    ///
    /// - Parameter receiveQueueLimit: The most bytes read ahead of
    ///   ``receive(expecting:accepting:)``; past it the channel is shut down.
    /// - Throws: ``BluetoothError`` if the send MTU cannot be read (or no descriptor is left for the
    ///   reader's wake signal), ``L2CAPFramingError`` if it is below the LE minimum.
    package init(channel: L2CAPChannel, receiveQueueLimit: Int = defaultReceiveQueueLimit) throws {
        _ = try Self.usableMTU(of: channel)
        self.channel = channel
        writer = DispatchQueue(label: "l2cap-writer")
        let stopped = try WakeSignal()
        self.stopped = stopped
        let queue = ReceiveQueue(limit: receiveQueueLimit)
        self.queue = queue
        let (stream, sink) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        sdus = stream.makeAsyncIterator()
        let readerEnded = readerEnded
        // The thread takes the channel out of `handOver` and lets go of it before it reports the
        // end, so that ``closeAndWait()`` knows when only the stream's owners still hold it.
        let handOver = ChannelHandOver(channel)
        let reader = Thread {
            nameCurrentThread("l2cap-reader")
            if let channel = handOver.take() { Self.read(channel, into: sink, queue: queue, until: stopped) }
            readerEnded.fulfil(())
        }
        reader.start()
    }

    /// The reader thread's loop: SDUs from `channel` into `sink` until the peer closes, the channel
    /// fails or is shut down, or `stopped` is signalled. It blocks on the channel and `stopped`
    /// together: no wake-up while the peer is silent.
    private static func read(
        _ channel: L2CAPChannel, into sink: AsyncThrowingStream<[UInt8], any Error>.Continuation,
        queue: ReceiveQueue, until stopped: WakeSignal
    ) {
        do {
            while let sdu = try channel.read(unless: stopped) {
                if sdu.isEmpty { break }
                guard queue.enqueue(sdu.count) else {
                    channel.shutDown()
                    throw L2CAPFramingError.receiveQueueFull(limit: queue.limit)
                }
                sink.yield(sdu)
            }
            sink.finish()
        } catch {
            sink.finish(throwing: error)
        }
    }

    /// Sends one message (framed and cut at the send MTU).
    package func send(_ message: [UInt8]) async throws {
        let framed = L2CAPFraming.frame(message)
        let channel = channel
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            writer.async {
                done.resume(with: Result { try Self.write(framed, to: channel) })
            }
        }
    }

    /// Writes `bytes` in SDUs of at most the channel's send MTU, read again for each message. In
    /// blevm, with bluetoothd on both ends, a phone's channel refused a 530-byte write (`EMSGSIZE`)
    /// after its MTU had read higher at accept, and 517 at the failure: so a refused write also
    /// reads the MTU again and cuts the rest to it (the reader reassembles at CRLF, §10.9).
    private static func write(_ bytes: [UInt8], to channel: L2CAPChannel) throws {
        var mtu = try usableMTU(of: channel)
        var offset = 0
        while offset < bytes.count {
            let sdu = Array(bytes[offset..<min(offset + mtu, bytes.count)])
            switch Result(catching: { () throws(BluetoothError) in try channel.write(sdu) }) {
            case .success:
                offset += sdu.count
            case .failure(.systemCallFailed(let operation, let code)) where code == EMSGSIZE:
                let lowered = try usableMTU(of: channel)
                guard lowered < sdu.count else {
                    throw BluetoothError.systemCallFailed(operation: operation, errno: code)
                }
                mtu = lowered
            case .failure(let error):
                throw error
            }
        }
    }

    /// The channel's send MTU now, refused below the LE minimum.
    private static func usableMTU(of channel: L2CAPChannel) throws -> Int {
        let mtu = try channel.sendMTU()
        guard mtu >= L2CAPFraming.minimumSendMTU else { throw L2CAPFramingError.sendMTUTooSmall(mtu) }
        return mtu
    }

    /// The next message of `shape`, cut at the first candidate CRLF `accept` takes (see
    /// ``L2CAPMessageDeframer/nextMessage(expecting:accepting:)``), or `nil` once the peer closed
    /// between messages.
    ///
    /// - Throws: ``L2CAPFramingError`` (a message too large, not of `shape`, cut off by the close,
    ///   or a flood past ``receiveQueueLimit``), a ``BluetoothError`` from the socket, or
    ///   `CancellationError`.
    package mutating func receive(
        expecting shape: L2CAPMessageShape, accepting accept: ([UInt8]) -> Bool
    ) async throws -> [UInt8]? {
        while true {
            if let message = try deframer.nextMessage(expecting: shape, accepting: accept) { return message }
            // A flood ends the stream at once, not after the bytes queued before it.
            if queue.overflowed { throw L2CAPFramingError.receiveQueueFull(limit: queue.limit) }
            guard let sdu = try await sdus.next() else {
                try Task.checkCancellation()
                try deframer.endOfStream()
                return nil
            }
            queue.dequeue(sdu.count)
            try deframer.append(sdu)
        }
    }

    /// The most bytes read ahead of ``receive(expecting:accepting:)`` before the channel is dropped.
    package var receiveQueueLimit: Int { queue.limit }

    /// Returns once the channel is closed: by the peer, by a socket error, or by ``close()``.
    /// Callable from any task.
    package var whenClosed: @Sendable () async -> Void {
        { [readerEnded] in await readerEnded.value }
    }

    /// Stops reading and shuts the channel down.
    package func close() { closer() }

    /// Stops reading, shuts the channel down, and returns once the reader thread and every write
    /// have ended and let go of the channel: from then on only the stream and the caller hold it,
    /// so its descriptor closes as soon as they drop it. A session that must be over when it
    /// returns (the security key's `closed` event) closes this way.
    package func closeAndWait() async {
        close()
        await readerEnded.value
        await withCheckedContinuation { (drained: CheckedContinuation<Void, Never>) in
            writer.async { drained.resume() }
        }
    }

    /// ``close()`` as a closure any task may call, for a watchdog that does not own the stream.
    package var closer: @Sendable () -> Void {
        { [stopped, channel] in
            stopped.signal()
            channel.shutDown()
        }
    }
}

/// The bytes the reader thread has queued and ``L2CAPMessageStream/receive(expecting:accepting:)``
/// has not taken yet, against a limit; once over it, the queue stays closed.
private final class ReceiveQueue: Sendable {
    let limit: Int
    private let state = Mutex<(queued: Int, overflowed: Bool)>((0, false))

    init(limit: Int) { self.limit = limit }

    /// Counts `count` more bytes in. `false`, for good, once they would exceed the limit.
    func enqueue(_ count: Int) -> Bool {
        state.withLock { state in
            guard !state.overflowed, state.queued + count <= limit else {
                state.overflowed = true
                return false
            }
            state.queued += count
            return true
        }
    }

    /// `count` bytes were taken.
    func dequeue(_ count: Int) { state.withLock { $0.queued -= count } }

    /// Whether the limit was passed.
    var overflowed: Bool { state.withLock { $0.overflowed } }
}

/// The channel on its way to the reader thread, taken once.
private final class ChannelHandOver: Sendable {
    private let slot: Mutex<L2CAPChannel?>

    init(_ channel: L2CAPChannel) { slot = Mutex(channel) }

    func take() -> L2CAPChannel? { slot.withLock { $0.take() } }
}
