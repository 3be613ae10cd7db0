import Foundation
import HybridCore
import Testing

@testable import HybridBluetooth

#if canImport(Glibc)
    import Glibc
#endif

/// ``L2CAPMessageStream`` over an `AF_UNIX` `SOCK_SEQPACKET` pair (it keeps write boundaries, as
/// L2CAP SDUs do); the kernel's channel is proven in the blevm guest (KernelL2CAPTests).
@Suite(.timeLimit(.minutes(1))) struct L2CAPMessageStreamTests {
    /// A peer that sends faster than the session takes its messages (here: not at all) fills the
    /// reader's queue; past its limit the channel is shut down and the stream ends with a typed
    /// error, rather than the queue growing without bound. Counted in bytes the peer could write
    /// before its writes failed: the limit and what the socket buffers hold, not the flood.
    @Test func aFloodPastTheReceiveQueueLimitDropsTheChannel() async throws {
        var descriptors: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &descriptors) == 0)
        let local = L2CAPChannel.adopting(descriptor: descriptors[0], sendMTU: 64)
        let peer = L2CAPChannel.adopting(descriptor: descriptors[1], sendMTU: 64)
        var stream = try L2CAPMessageStream(channel: local, receiveQueueLimit: 1024)
        #expect(stream.receiveQueueLimit == 1024)

        let budget = 4 << 20
        var written = 0
        while written < budget, (try? peer.write([UInt8](repeating: 0x0A, count: 256))) != nil {
            written += 256
        }
        #expect(written < budget, "the channel was shut before the whole flood was taken")
        guard written < budget else { return stream.close() }
        await stream.whenClosed()
        do {
            let message = try await stream.receive(expecting: .transportFrame) { _ in true }
            Issue.record("expected the queue's error, got \(String(describing: message))")
        } catch {
            #expect(error as? L2CAPFramingError == .receiveQueueFull(limit: 1024))
        }
    }

    /// Below the limit the queue only passes bytes on: a message in many SDUs, taken late.
    @Test func aMessageInManySDUsWithinTheLimitIsReceived() async throws {
        var descriptors: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &descriptors) == 0)
        let local = L2CAPChannel.adopting(descriptor: descriptors[0], sendMTU: 64)
        let peer = L2CAPChannel.adopting(descriptor: descriptors[1], sendMTU: 64)
        var stream = try L2CAPMessageStream(channel: local, receiveQueueLimit: 1024)
        let message = [UInt8](repeating: 0x61, count: 1000)
        for sdu in try L2CAPFraming.writes(for: message, sendMTU: 64) { try peer.write(sdu) }
        peer.shutDown()
        #expect(try await stream.receive(expecting: .transportFrame) { $0.count == 1000 } == message)
        #expect(try await stream.receive(expecting: .transportFrame) { _ in true } == nil)
    }
}
