import Foundation
import HybridBluetooth
import HybridCore
import HybridDeadline
import Logging
import Synchronization

/// The data channel a matched advert leads to.
enum OpenedDataChannel<Instant: InstantProtocol>: Sendable where Instant: Sendable, Instant.Duration == Duration {
    /// Use the tunnel the advert names.
    case tunnel
    /// Use this BLE L2CAP channel to the advertiser, whose selector waits for its first message.
    case l2cap(L2CAPChannel, DataChannelSelector<Instant>)
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
    ) async throws(HybridClientError) -> OpenedDataChannel<C.Instant> {
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
                return .l2cap(connected, selector)
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

    /// Opens the data channel the matched advert leads to (``openDataChannel(clock:psm:offeredL2CAP:advert:emit:)``)
    /// and, when it is the phone's L2CAP channel, runs the session over it; `nil` when the tunnel
    /// is to be used: chosen, or fallen back to under `auto` with `session` as it was.
    func runOverL2CAPIfChosen<C: Clock<Duration>>(
        clock: C, psm: UInt16?, offeredL2CAP: Bool, advert: BLEAdvertisement,
        makeRequest: @Sendable (PostHandshakeMessage, Logger) throws -> HybridPayload,
        session: inout ClientSession,
        observer: any HybridSessionObserver,
        emit: (HybridClientEvent) async -> Void,
        complete: (HybridPayload, PostHandshakeMessage) async throws -> Void
    ) async throws -> HybridSessionEnd? {
        guard
            case .l2cap(let l2capChannel, var selector) = try await openDataChannel(
                clock: clock, psm: psm, offeredL2CAP: offeredL2CAP, advert: advert, emit: emit)
        else { return nil }
        let beforeL2CAP = session
        do {
            return try await runOverL2CAP(
                l2capChannel, selector: selector, clock: clock, makeRequest: makeRequest, session: &session,
                observer: observer, emit: emit, complete: complete)
        } catch {
            guard !(error is CancellationError), !Task.isCancelled else { throw error }
            let actions = selector.l2capSessionFailed(
                error as? L2CAPUnavailableReason, describedAs: Self.reason(error),
                handshakeComplete: session.handshakeHash != nil)
            for action in actions {
                switch action {
                case .l2capUnavailable(let why):
                    await emit(.l2capUnavailable(why))
                case .connectTunnel:
                    logger.debug(
                        "L2CAP channel failed before the handshake completed; using the tunnel",
                        metadata: ["l2cap.error": "\(error)"])
                    session = beforeL2CAP
                    return nil
                case .fail(let why):
                    throw HybridClientError.dataChannel(why)
                case .connectL2CAP, .abandonL2CAP, .use:
                    break
                }
            }
            throw error
        }
    }

    /// The ceremony over the phone's L2CAP channel: the same handshake and messages as over the
    /// tunnel, framed for L2CAP (§10.9). The channel closes right after the shutdown: a late
    /// update (§7.5) is only awaited on the tunnel.
    ///
    /// The other end must send its first message by `selector`'s
    /// ``DataChannelSelector/l2capFirstMessageDeadline`` on `clock`; if it has not, the channel is
    /// shut and this throws ``L2CAPUnavailableReason/noHandshake(limit:)`` (under `auto` the
    /// caller then uses the tunnel: nothing was revealed before the handshake).
    func runOverL2CAP<C: Clock<Duration>>(
        _ l2capChannel: L2CAPChannel,
        selector: DataChannelSelector<C.Instant>,
        clock: C,
        makeRequest: @Sendable (PostHandshakeMessage, Logger) throws -> HybridPayload,
        session: inout ClientSession,
        observer: any HybridSessionObserver,
        emit: (HybridClientEvent) async -> Void,
        complete: (HybridPayload, PostHandshakeMessage) async throws -> Void
    ) async throws -> HybridSessionEnd {
        let stream: L2CAPMessageStream
        do {
            stream = try L2CAPMessageStream(channel: l2capChannel)
        } catch {
            l2capChannel.shutDown()
            throw error
        }
        await emit(.channel(.l2cap))
        let watch = L2CAPFirstMessageWatch(selector)
        var watched = FirstMessageWatchedChannel(inner: stream, watch: watch)
        let result: (reply: HybridPayload, postHandshake: PostHandshakeMessage)
        do {
            let deadline = selector.l2capFirstMessageDeadline
            (result, _) = try await withDeadline(
                deadline, on: clock,
                onExpiry: { if let deadline, watch.deadlinePassed(at: deadline) { l2capChannel.shutDown() } }
            ) {
                try await exchange(makeRequest, session: &session, over: &watched, observer: observer, emit: emit)
            }
            try await complete(result.reply, result.postHandshake)
        } catch {
            await stream.closeAndWait()
            if let why = watch.reason { throw why }
            throw error
        }
        // The session ends when the channel's reader and writes have: its caller may then say so.
        await stream.closeAndWait()
        return HybridSessionEnd(reason: .closedAtOnce)
    }
}

/// The L2CAP channel's first-message deadline between the session's task (which sees the
/// messages) and the task that sleeps until the deadline: ``DataChannelSelector`` decides.
final class L2CAPFirstMessageWatch<Instant: InstantProtocol>: Sendable
where Instant: Sendable, Instant.Duration == Duration {
    private struct State {
        var selector: DataChannelSelector<Instant>
        var reason: L2CAPUnavailableReason?
    }

    private let state: Mutex<State>

    init(_ selector: DataChannelSelector<Instant>) { state = Mutex(State(selector: selector)) }

    /// A message came.
    func messageReceived() { state.withLock { $0.selector.l2capMessageReceived() } }

    /// The deadline came; `true` when the channel is to be given up (no message yet).
    func deadlinePassed(at now: Instant) -> Bool {
        state.withLock { state in
            for case .l2capUnavailable(let why) in state.selector.l2capSilent(at: now) {
                state.reason = why
                return true
            }
            return false
        }
    }

    /// Why the channel was given up, once it was.
    var reason: L2CAPUnavailableReason? { state.withLock { $0.reason } }
}

/// A session channel that tells an ``L2CAPFirstMessageWatch`` when a message arrives.
struct FirstMessageWatchedChannel<Inner: SessionMessageChannel, Instant: InstantProtocol>: SessionMessageChannel
where Instant: Sendable, Instant.Duration == Duration {
    var inner: Inner
    let watch: L2CAPFirstMessageWatch<Instant>

    func send(_ message: [UInt8]) async throws { try await inner.send(message) }

    mutating func next(expecting shape: L2CAPMessageShape, accepting accept: ([UInt8]) -> Bool) async throws
        -> [UInt8]?
    {
        let message = try await inner.next(expecting: shape, accepting: accept)
        if message != nil { watch.messageReceived() }
        return message
    }
}
