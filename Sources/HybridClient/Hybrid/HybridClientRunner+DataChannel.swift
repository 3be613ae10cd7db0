import Foundation
import HybridBluetooth
import HybridCore
import Logging

/// The data channel a matched advert leads to.
enum OpenedDataChannel: Sendable {
    /// Use the tunnel the advert names.
    case tunnel
    /// Use this BLE L2CAP channel to the advertiser.
    case l2cap(L2CAPChannel)
}

/// How one L2CAP attempt ended.
private enum L2CAPAttempt: Sendable {
    case connected(L2CAPChannel)
    case failed(any Error)
    case deadlinePassed
}

extension HybridClientRunner {
    /// QR key 6 for this ceremony (protocol.md §1.3): `[0, 1]` when ``HybridClientOptions/channel``
    /// allows L2CAP and the adapter can, else `nil` (no key 6). When the adapter cannot, `emit`
    /// gets ``HybridClientEvent/l2capUnavailable(_:)`` with the reason first.
    ///
    /// - Throws: ``HybridClientError/dataChannel(_:)`` for `--channel l2cap` without an able adapter.
    func offeredChannels(emit: (HybridClientEvent) async -> Void) async throws(HybridClientError)
        -> [DataTransferChannel]?
    {
        let capabilities =
            options.channel == .tunnel
            ? BluetoothCapabilities(leConnections: false, extendedAdvertisingReception: false)
            : await options.l2cap.capabilities()
        if options.channel != .tunnel, let why = capabilities.l2capUnavailableReason {
            await emit(.l2capUnavailable(why))
        }
        do {
            return try QRChannelOffer.channels(mode: options.channel, capabilities: capabilities)
        } catch {
            throw .dataChannel(error)
        }
    }

    /// Drives ``DataChannelSelector`` for a matched advert: tries the phone's L2CAP channel when
    /// the advert has a PSM, and falls back to the tunnel (under `.auto`) when it fails or its
    /// deadline on `clock` passes first.
    ///
    /// - Throws: ``HybridClientError/dataChannel(_:)`` when no channel is possible.
    func openDataChannel<C: Clock<Duration>>(
        clock: C, psm: UInt16?, offeredL2CAP: Bool, advert: BLEAdvertisement,
        emit: (HybridClientEvent) async -> Void
    ) async throws(HybridClientError) -> OpenedDataChannel {
        var selector = DataChannelSelector<C.Instant>(
            mode: options.channel, l2capTimeout: options.l2capTimeout, offeredL2CAP: offeredL2CAP)
        var actions = selector.advertMatched(psm: psm, at: clock.now)
        var connected: L2CAPChannel?
        while !actions.isEmpty {
            switch actions.removeFirst() {
            case .connectL2CAP(let psm, let deadline):
                await emit(.connectingL2CAP(psm: psm))
                switch await attemptL2CAP(to: advert, psm: psm, clock: clock, deadline: deadline) {
                case .connected(let channel):
                    connected = channel
                    actions += selector.l2capConnected(at: clock.now)
                case .failed(let error):
                    logger.debug("L2CAP channel failed", metadata: ["l2cap.error": "\(error)"])
                    actions += selector.l2capFailed(Self.reason(error), at: clock.now)
                case .deadlinePassed:
                    logger.debug("L2CAP channel not open in time", metadata: ["l2cap.psm": "\(psm)"])
                    actions += selector.timePassed(deadline)
                }
            case .abandonL2CAP:
                connected?.shutDown()
                connected = nil
            case .l2capUnavailable(let why):
                await emit(.l2capUnavailable(why))
            case .connectTunnel, .use(.tunnel):
                return .tunnel
            case .use(.l2cap):
                guard let connected else { throw .dataChannel(.l2capUnavailable) }
                return .l2cap(connected)
            case .fail(let error):
                throw .dataChannel(error)
            }
        }
        return .tunnel
    }

    /// An L2CAP connect error in a person's words: the system's text for an errno ("connect
    /// L2CAP: Connection refused"), else ``BluetoothError``'s own, else the error.
    static func reason(_ error: any Error) -> String {
        guard let error = error as? BluetoothError else { return "\(error)" }
        if case .systemCallFailed(let operation, let code) = error, let text = strerror(code) {
            return "\(operation): \(String(cString: text))"
        }
        return error.description
    }

    /// One L2CAP connect raced against `deadline`. The connect bounds itself by
    /// ``HybridClientOptions/l2capTimeout`` (it blocks in the kernel and cannot be cancelled), so
    /// waiting for it here ends by then; a channel that opens after the deadline is shut.
    private func attemptL2CAP<C: Clock<Duration>>(
        to advert: BLEAdvertisement, psm: UInt16, clock: C, deadline: C.Instant
    ) async -> L2CAPAttempt {
        let connect = options.l2cap.connect
        let timeout = options.l2capTimeout
        return await withTaskGroup(of: L2CAPAttempt.self) { group in
            group.addTask {
                do {
                    return .connected(try await connect(advert, psm, timeout))
                } catch {
                    return .failed(error)
                }
            }
            group.addTask {
                try? await clock.sleep(until: deadline, tolerance: nil)
                return .deadlinePassed
            }
            let first = await group.next() ?? .deadlinePassed
            group.cancelAll()
            for await late in group {
                if case .connected(let channel) = late { channel.shutDown() }
            }
            return first
        }
    }

    /// The ceremony over the phone's L2CAP channel: the same handshake and messages as over the
    /// tunnel, framed for L2CAP (§10.9). The channel closes right after the shutdown: a late
    /// update (§7.5) is only awaited on the tunnel.
    func runOverL2CAP(
        _ l2capChannel: L2CAPChannel,
        makeRequest: @Sendable (PostHandshakeMessage, Logger) throws -> HybridPayload,
        session: inout ClientSession,
        observer: any HybridSessionObserver,
        emit: (HybridClientEvent) async -> Void,
        complete: (HybridPayload, PostHandshakeMessage) async throws -> Void
    ) async throws -> HybridSessionEnd {
        var stream: L2CAPMessageStream
        do {
            stream = try L2CAPMessageStream(channel: l2capChannel)
        } catch {
            l2capChannel.shutDown()
            throw error
        }
        await emit(.channel(.l2cap))
        do {
            let (reply, postHandshake) = try await exchange(
                makeRequest, session: &session, over: &stream, observer: observer, emit: emit)
            try await complete(reply, postHandshake)
        } catch {
            await stream.closeAndWait()
            throw error
        }
        // The session ends when the channel's reader and writes have: its caller may then say so.
        await stream.closeAndWait()
        return HybridSessionEnd(reason: .closedAtOnce)
    }
}
