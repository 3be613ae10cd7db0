import HybridBluetooth
import HybridCore
import Synchronization
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Stands in for the kernel's LE L2CAP channels beside a simulated air: a phone listens
/// (``listen()``, a fresh PSM each time, as the kernel's dynamic range hands them out) and a client
/// connects to a PSM (``connect(psm:)``). Each channel is an `AF_UNIX` `SOCK_SEQPACKET` pair, which
/// keeps write boundaries as SDUs do; the kernel's own channels are proven in the blevm guest.
package final class SocketPairL2CAP: Sendable {
    /// How the phone's listener treats a channel.
    package enum Conduct: Sendable {
        /// It serves the channel.
        case serves
        /// It closes the phone's end at once: a phone that advertises a PSM it does not serve.
        case closesAtOnce
    }

    private let conduct: Conduct
    private let listeners = Mutex<(next: UInt16, byPSM: [UInt16: Listener])>((0x0080, [:]))

    package init(_ conduct: Conduct = .serves) { self.conduct = conduct }

    /// A new listener on the next free PSM.
    package func listen() -> any L2CAPChannelSource {
        listeners.withLock { state in
            let listener = Listener(psm: state.next)
            state.byPSM[state.next] = listener
            state.next += 1
            return listener
        }
    }

    /// The client's end of a new channel to `psm`; the listener's end goes to its next accept.
    /// - Throws: ``TestFailure`` when nothing listens on `psm` (the kernel's ECONNREFUSED).
    package func connect(psm: UInt16) throws -> L2CAPChannel {
        guard let listener = listeners.withLock({ $0.byPSM[psm] }) else {
            throw TestFailure("nothing listens on PSM \(psm)")
        }
        var descriptors: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &descriptors) == 0 else {
            throw TestFailure("socketpair: errno \(errno)")
        }
        switch conduct {
        case .serves: listener.accepted.yield(L2CAPChannel.adopting(descriptor: descriptors[1], sendMTU: 64))
        case .closesAtOnce: close(descriptors[1])
        }
        return L2CAPChannel.adopting(descriptor: descriptors[0], sendMTU: L2CAPFraming.minimumSendMTU)
    }

    private final class Listener: L2CAPChannelSource {
        let psm: UInt16
        let channels: AsyncStream<L2CAPChannel>
        let accepted: AsyncStream<L2CAPChannel>.Continuation

        init(psm: UInt16) {
            self.psm = psm
            (channels, accepted) = AsyncStream<L2CAPChannel>.makeStream()
        }

        func nextChannel() async throws -> L2CAPChannel {
            var next = channels.makeAsyncIterator()
            guard let channel = await next.next() else { throw CancellationError() }
            return channel
        }
    }
}
