import Foundation
import HybridCore

/// Hybrid messages over one ``L2CAPChannel``, for async code (protocol.md §3.4, §10.9): each
/// message goes out framed with CRLF in writes of at most the send MTU, and comes back through an
/// ``L2CAPMessageDeframer`` that lets the caller pick the right CRLF.
///
/// A thread of its own reads SDUs (the channel blocks); writes run on a serial queue. Owned by one
/// task: ``receive(accepting:)`` is `mutating`. ``close()`` ends the reader.
package struct L2CAPMessageStream {
    private let channel: L2CAPChannel
    private let writer: DispatchQueue
    private var sdus: AsyncThrowingStream<[UInt8], any Error>.AsyncIterator
    private let stopped: StopFlag
    private let readerEnded = OneShot<Void>()
    private var deframer = L2CAPMessageDeframer()

    /// Starts reading `channel`.
    ///
    /// - Throws: ``BluetoothError`` if the send MTU cannot be read, ``L2CAPFramingError`` if it is
    ///   below the LE minimum.
    package init(channel: L2CAPChannel) throws {
        _ = try Self.usableMTU(of: channel)
        self.channel = channel
        writer = DispatchQueue(label: "l2cap-writer")
        let stopped = StopFlag()
        self.stopped = stopped
        let (stream, sink) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        sdus = stream.makeAsyncIterator()
        let readerEnded = readerEnded
        let reader = Thread {
            defer { readerEnded.fulfil(()) }
            do {
                while !stopped.isSet {
                    guard let sdu = try channel.read(timeoutMilliseconds: 100) else { continue }
                    if sdu.isEmpty { break }
                    sink.yield(sdu)
                }
                sink.finish()
            } catch {
                sink.finish(throwing: error)
            }
        }
        reader.name = "l2cap-reader"
        reader.start()
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

    /// The next message, cut at the first CRLF `accept` takes (see
    /// ``L2CAPMessageDeframer/nextMessage(accepting:)``), or `nil` once the peer closed between
    /// messages.
    ///
    /// - Throws: ``L2CAPFramingError`` (a message too large, or cut off by the close), a
    ///   ``BluetoothError`` from the socket, or `CancellationError`.
    package mutating func receive(accepting accept: ([UInt8]) -> Bool) async throws -> [UInt8]? {
        while true {
            if let message = deframer.nextMessage(accepting: accept) { return message }
            guard let sdu = try await sdus.next() else {
                try Task.checkCancellation()
                try deframer.endOfStream()
                return nil
            }
            try deframer.append(sdu)
        }
    }

    /// Returns once the channel is closed: by the peer, by a socket error, or by ``close()``.
    /// Callable from any task.
    package var whenClosed: @Sendable () async -> Void {
        { [readerEnded] in await readerEnded.value }
    }

    /// Stops reading and shuts the channel down.
    package func close() { closer() }

    /// ``close()`` as a closure any task may call, for a watchdog that does not own the stream.
    package var closer: @Sendable () -> Void {
        { [stopped, channel] in
            stopped.set()
            channel.shutDown()
        }
    }
}

/// Set once, read from the reader thread.
private final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
