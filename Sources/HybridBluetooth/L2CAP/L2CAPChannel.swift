import CBlueZ
import Foundation
import HybridThreads

#if canImport(Glibc)
    import Glibc
#endif

/// One LE L2CAP connection-oriented channel (credit-based), the CTAP 2.3 hybrid data channel
/// (protocol.md §3.4, §10.9): a kernel `SOCK_SEQPACKET` socket at the default, pairing-free security.
///
/// Blocking: call it from a ``BlockingActivity`` thread or a test. Framing is
/// `HybridCore.L2CAPFraming`'s job; this type moves SDUs.
package final class L2CAPChannel: @unchecked Sendable {
    private let descriptor: Int32
    /// The send MTU of an adopted socket, which has no `BT_SNDMTU`.
    private let fixedSendMTU: Int?
    /// The LE link that ``connect(from:to:peerType:psm:timeout:adapterID:)`` had the kernel bring up,
    /// ended with the channel.
    private let ownedLink: OwnedLELink?

    private init(descriptor: Int32, fixedSendMTU: Int? = nil, ownedLink: OwnedLELink? = nil) {
        self.descriptor = descriptor
        self.fixedSendMTU = fixedSendMTU
        self.ownedLink = ownedLink
    }

    /// Closes the socket and, for a channel this side connected, ends its LE link at once rather
    /// than after the kernel's idle delay (see ``OwnedLELink``).
    deinit {
        close(descriptor)
        ownedLink?.end()
    }

    /// Takes over `descriptor`, a connected `SOCK_SEQPACKET` socket (closed with this channel), with
    /// `sendMTU` as its send MTU: tests pass one end of an `AF_UNIX` socket pair, which keeps write
    /// boundaries as SDUs do.
    package static func adopting(descriptor: Int32, sendMTU: Int) -> L2CAPChannel {
        L2CAPChannel(descriptor: descriptor, fixedSendMTU: sendMTU)
    }

    /// Connects from `adapter` to `peer`'s `psm`. The kernel scans for the peer's connectable
    /// advert, connects, then opens the channel. Blocks for at most `timeout` (zero: the kernel's
    /// own limit); the attempt is cancelled when it passes.
    ///
    /// - Parameters:
    ///   - peerType: The peer's address type; a phone advertises from a random address.
    ///   - adapterID: The adapter's HCI device number: with it, the channel ends its LE link when it
    ///     closes (``OwnedLELink``).
    /// - Throws: ``BluetoothError/systemCallFailed(operation:errno:)`` (`ECONNREFUSED` at once when
    ///   the adapter's LE setting is off or the PSM is not listened on, `EINPROGRESS` on timeout).
    package static func connect(
        from adapter: BLEAddress, to peer: BLEAddress, peerType: BLEAddressType = .public, psm: UInt16,
        timeout: Duration = .zero, adapterID: Int32? = nil
    ) throws(BluetoothError) -> L2CAPChannel {
        // BDADDR_LE_PUBLIC 1, BDADDR_LE_RANDOM 2 (<bluetooth/bluetooth.h>).
        let type: UInt8 = peerType == .random ? 2 : 1
        let milliseconds = Int32(
            clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        let fd = CBlueZ_l2capConnectLE(adapter.littleEndianBytes, peer.littleEndianBytes, type, psm, milliseconds)
        guard fd >= 0 else { throw .systemCallFailed(operation: "connect L2CAP PSM \(psm)", errno: errno) }
        let handle = CBlueZ_l2capConnectionHandle(fd)
        let link = adapterID.flatMap { adapterID in
            handle < 0 ? nil : OwnedLELink(adapterID: adapterID, peer: peer, handle: UInt16(handle))
        }
        return L2CAPChannel(descriptor: fd, ownedLink: link)
    }

    /// Shuts the channel down both ways: a blocked or later ``read(timeoutMilliseconds:)`` returns
    /// `[]` at once. The descriptor itself closes with the channel.
    package func shutDown() {
        _ = shutdown(descriptor, Int32(SHUT_RDWR))
    }

    /// The largest SDU one write may carry (the peer's MTU).
    package func sendMTU() throws(BluetoothError) -> Int {
        if let fixedSendMTU { return fixedSendMTU }
        let mtu = CBlueZ_l2capSendMTU(descriptor)
        guard mtu >= 0 else { throw .systemCallFailed(operation: "getsockopt(BT_SNDMTU)", errno: errno) }
        return Int(mtu)
    }

    /// Writes one SDU (at most ``sendMTU()`` bytes).
    package func write(_ sdu: [UInt8]) throws(BluetoothError) {
        let sent = sdu.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == sdu.count else {
            let mtu = (try? sendMTU()).map { ", send MTU \($0)" } ?? ""
            throw .systemCallFailed(
                operation: "send L2CAP SDU of \(sdu.count) bytes (\(sent) sent\(mtu))",
                errno: sent < 0 ? errno : EMSGSIZE)
        }
    }

    /// Reads one SDU, waiting at most `timeoutMilliseconds`. `nil` on timeout; `[]` when the peer closed.
    package func read(timeoutMilliseconds: Int32) throws(BluetoothError) -> [UInt8]? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&poller, 1, timeoutMilliseconds)
        guard ready >= 0 else { throw .systemCallFailed(operation: "poll L2CAP", errno: errno) }
        guard ready > 0 else { return nil }
        return try receiveSDU()
    }

    /// Reads one SDU, blocking until one arrives or `wake` is signalled (then `nil`, with no
    /// wake-up in between); `[]` when the peer closed.
    func read(unless wake: WakeSignal) throws(BluetoothError) -> [UInt8]? {
        guard try wake.waitUntilReadable(descriptor, operation: "poll L2CAP") else { return nil }
        return try receiveSDU()
    }

    private func receiveSDU() throws(BluetoothError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard count >= 0 else { throw .systemCallFailed(operation: "recv L2CAP", errno: errno) }
        return Array(buffer[..<count])
    }

    /// A listening socket on a dynamic LE PSM.
    package final class Listener: @unchecked Sendable {
        private let descriptor: Int32
        /// The PSM the kernel picked (0x0080–0x00FF), for the advert suffix.
        package let psm: UInt16

        /// Listens on `adapter` (its LE public address).
        package init(adapter: BLEAddress) throws(BluetoothError) {
            var psm: UInt16 = 0
            let fd = CBlueZ_l2capListenLE(adapter.littleEndianBytes, &psm)
            guard fd >= 0 else { throw .systemCallFailed(operation: "listen on an LE L2CAP PSM", errno: errno) }
            descriptor = fd
            self.psm = psm
        }

        deinit { close(descriptor) }

        /// Waits for one channel.
        package func accept() throws(BluetoothError) -> L2CAPChannel {
            let fd = CBlueZ_l2capAccept(descriptor)
            guard fd >= 0 else { throw .systemCallFailed(operation: "accept L2CAP", errno: errno) }
            return L2CAPChannel(descriptor: fd)
        }

        /// Waits for one channel unless `wake` is signalled first (then `nil`).
        func accept(unless wake: WakeSignal) throws(BluetoothError) -> L2CAPChannel? {
            guard try wake.waitUntilReadable(descriptor, operation: "poll L2CAP listener") else { return nil }
            return try accept()
        }

        /// The next channel a client opens, accepted on a thread of its own.
        ///
        /// - Throws: ``BluetoothError``, or `CancellationError` when the task is cancelled first.
        package func nextChannel() async throws -> L2CAPChannel {
            let wake = try WakeSignal()
            let accepted: Result<L2CAPChannel?, BluetoothError> = await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let thread = Thread {
                        nameCurrentThread("l2cap-accept")
                        continuation.resume(
                            returning: Result { () throws(BluetoothError) in try self.accept(unless: wake) })
                    }
                    thread.start()
                }
            } onCancel: {
                wake.signal()
            }
            guard let channel = try accepted.get() else { throw CancellationError() }
            return channel
        }
    }
}
