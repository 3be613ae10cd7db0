import Testing

@testable import HybridUHID

#if canImport(Glibc)
    import Glibc
#endif

/// The reader thread of the uhid device, on a socketpair standing in for /dev/uhid (this host has
/// none): it delivers what arrives, in order, ends when told to although nothing arrives (the
/// eventfd, not a poll timeout, wakes it), and bounds its own queue.
@Suite(.timeLimit(.minutes(1))) struct DescriptorDrainTests {
    /// A non-blocking datagram pair: `device` is what the reader drains, `host` writes to it.
    private struct StandIn {
        let device: Int32
        let host: Int32

        init() throws {
            var fds: [Int32] = [-1, -1]
            let type = Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
            try #require(socketpair(AF_UNIX, type, 0, &fds) == 0)
            device = fds[0]
            host = fds[1]
        }

        func write(_ byte: UInt8) {
            var value = byte
            #expect(send(host, &value, 1, 0) == 1)
        }

        /// One datagram's first byte, `nil` when none is queued.
        @Sendable func readOne() throws -> UInt8? {
            var value: UInt8 = 0
            let count = recv(device, &value, 1, Int32(MSG_DONTWAIT))
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return nil }
            guard count == 1 else { throw UHIDError.read(errno: errno) }
            return value
        }

        func close() {
            Glibc.close(device)
            Glibc.close(host)
        }
    }

    @Test func stopEndsAReaderThatWaitsForNothing() async throws {
        let standIn = try StandIn()
        defer { standIn.close() }
        let drain = try DescriptorDrain(
            name: "test-drain", descriptor: standIn.device, capacity: 8, raisePriority: false,
            read: standIn.readOne)
        drain.stop()
        var received: [UInt8] = []
        for await element in drain.elements { received.append(element) }
        #expect(received.isEmpty)
    }

    @Test func deliversInOrderWhatArrivesWhileRunning() async throws {
        let standIn = try StandIn()
        defer { standIn.close() }
        let drain = try DescriptorDrain(
            name: "test-drain", descriptor: standIn.device, capacity: 8, raisePriority: false,
            read: standIn.readOne)
        var iterator = drain.elements.makeAsyncIterator()
        for byte in UInt8(1)...5 { standIn.write(byte) }
        var received: [UInt8] = []
        for _ in 1...5 { if let next = await iterator.next() { received.append(next) } }
        #expect(received == [1, 2, 3, 4, 5])
        drain.stop()
        #expect(await iterator.next() == nil)
        #expect(drain.droppedCount == 0)
    }

    @Test func aFullQueueDropsTheNewestAndCountsThem() async throws {
        let standIn = try StandIn()
        defer { standIn.close() }
        // Queued before the thread starts, and the stop right after: it drains all five into a
        // queue of two before it ends, and nothing is consumed until it has ended.
        for byte in UInt8(1)...5 { standIn.write(byte) }
        let (ended, end) = AsyncStream<Void>.makeStream()
        let drain = try DescriptorDrain(
            name: "test-drain", descriptor: standIn.device, capacity: 2, raisePriority: false,
            read: standIn.readOne, onFinish: { end.finish() })
        drain.stop()
        for await _ in ended {}
        var received: [UInt8] = []
        for await element in drain.elements { received.append(element) }
        #expect(received == [1, 2])
        #expect(drain.droppedCount == 3)
    }

    @Test func aHungUpDescriptorEndsTheReader() async throws {
        let standIn = try StandIn()
        defer { Glibc.close(standIn.device) }
        let drain = try DescriptorDrain(
            name: "test-drain", descriptor: standIn.device, capacity: 8, raisePriority: false,
            read: standIn.readOne)
        Glibc.close(standIn.host)
        var received: [UInt8] = []
        for await element in drain.elements { received.append(element) }
        #expect(received.isEmpty)
    }
}
