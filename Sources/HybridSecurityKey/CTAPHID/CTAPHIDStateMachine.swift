import HybridCTAP
import HybridCore

/// The CTAPHID side of a security key (CTAP 2.2 §11.2), sans-IO: reports and clock readings go
/// in, actions come out. It reassembles requests, allocates channels, answers INIT, PING, WINK
/// and LOCK itself, rejects what is malformed with CTAPHID_ERROR, hands each CBOR request to
/// the driver (``Action/startRequest(channel:payload:)``), and turns CANCEL into
/// CTAP2_ERR_KEEPALIVE_CANCEL at once.
///
/// Time is the caller's: every event carries `now`, a reading of one monotonic clock as a
/// `Duration` since any fixed origin. ``nextDeadline`` says when to call ``tick(at:)``.
///
/// It is the framing and channel layer of the key's one core (`SecurityKeyStateMachine`), which
/// owns the CBOR request in flight: its ID, its channel, its KEEPALIVEs and its answer. This layer
/// records none of it; each report comes with the channel of the request in flight
/// (`requestInFlight`), so that it can refuse, cancel or resynchronise around it.
///
/// One CBOR request is served at a time (a key has one user); other channels get
/// ``CTAPHIDProtocolError/channelBusy`` meanwhile, except INIT, which is always answered.
///
/// Every party that opens the hidraw node shares it, so a channel ID is the only thing that tells
/// them apart. Channel IDs therefore come from an injected random source (never 0, never the
/// broadcast ID, never one in use), so one cannot be guessed from another, and only the channel
/// that owns a transaction can touch it (CTAP 2.2 §11.2.5): CANCEL on any other channel is ignored
/// (§11.2.9.1.5), INIT on the broadcast channel or another channel leaves it alone and INIT on the
/// owner's channel aborts it (§11.2.5.3), and a LOCK is set, renewed or released by its owner only
/// (§11.2.9.2.2). The INIT answer on the broadcast channel is what libfido2 and Chromium match by
/// their random 8-byte nonce; neither assumes anything about the ID it is given.
public struct CTAPHIDStateMachine: Sendable {
    /// Timing, INIT-response contents and channel limits of the state machine; the defaults suit
    /// a FIDO2-only key.
    public struct Configuration: Sendable {
        /// Longest wait for the next continuation packet of a message (then ERR_MSG_TIMEOUT).
        public var messageTimeout: Duration = .milliseconds(500)
        /// Major, minor and build device version bytes of the INIT response.
        public var deviceVersion: (major: UInt8, minor: UInt8, build: UInt8) = (1, 0, 0)
        /// Capability flags of the INIT response: WINK and CBOR, and no MSG (FIDO2 only).
        public var capabilities: CTAPHIDCapabilities = [.wink, .cbor, .noMessage]
        /// Most channels remembered at once. INIT beyond this forgets the least recently used
        /// channel that owns nothing (its next message gets ERR_INVALID_CHANNEL and its host INITs
        /// again), so that INITs in a loop cannot grow the state without bound.
        public var maximumChannels: Int = 64

        /// The defaults (500 ms message timeout, WINK + CBOR + NMSG, 64 channels).
        public init() {}
    }

    /// What the driver does next, in order.
    public enum Action: Hashable, Sendable {
        /// Write these reports to the host, in order.
        case send(CTAPHIDMessage)
        /// A request was refused; send ``CTAPHIDRejection/message`` (already typed for logs).
        case reject(CTAPHIDRejection)
        /// Serve this CTAP2 request (command byte + CBOR) on `channel`: it is the request in flight
        /// until its answer (a CTAPHID_CBOR message on `channel`) or its cancellation.
        case startRequest(channel: UInt32, payload: [UInt8])
        /// Stop serving the request in flight; its answer is no longer wanted.
        case cancelRequest(reason: CTAPHIDCancelReason)
        /// The host asked the key to identify itself (CTAPHID_WINK).
        case wink
        /// A report that is not a CTAPHID packet at all (nothing can be answered).
        case ignore(CTAPHIDPacketError)
    }

    private struct Assembly: Sendable {
        var channel: UInt32
        var command: CTAPHIDCommand
        var length: Int
        var data: [UInt8]
        var nextSequence: UInt8
        var deadline: Duration
    }

    /// The configuration the state machine was created with.
    public let configuration: Configuration
    private var random: any RandomNumberGenerator & Sendable
    /// Allocated channels, least recently used first.
    private var channels: [UInt32] = []
    private var assembly: Assembly?
    private var lock: (channel: UInt32, until: Duration)?

    /// - Parameters:
    ///   - configuration: timeouts, capabilities and the channel limit.
    ///   - random: where channel IDs come from. The default is the system's
    ///     cryptographically secure generator; tests inject a seeded one.
    public init(
        configuration: Configuration = .init(),
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
    ) {
        self.configuration = configuration
        self.random = random
    }

    /// When ``tick(at:)`` must run next: a message timeout or a lock's end.
    public var nextDeadline: Duration? {
        [assembly?.deadline, lock?.until].compactMap { $0 }.min()
    }

    /// One output report from the host (64 bytes, without a report-ID byte). `requestInFlight`
    /// is the channel of the CBOR request being served (started and neither answered nor
    /// cancelled), if any.
    public mutating func reportReceived(
        _ report: some Collection<UInt8>, requestInFlight: UInt32? = nil, at now: Duration
    ) -> [Action] {
        expireLock(at: now)
        let packet: CTAPHIDPacket
        do {
            packet = try CTAPHIDPacket(report: report)
        } catch {
            if case .lengthTooLarge(let channel, let length) = error {
                return [.reject(CTAPHIDRejection(channel: channel, error: .invalidLength(nil, length: length)))]
            }
            return [.ignore(error)]
        }
        switch packet {
        case .initialization(let channel, let command, let length, let data):
            return initializationReceived(
                channel: channel, command: command, length: length, data: data, requestInFlight: requestInFlight,
                at: now)
        case .continuation(let channel, let sequence, let data):
            return continuationReceived(channel: channel, sequence: sequence, data: data, at: now)
        }
    }

    /// Sends what is due at `now`: an ERR_MSG_TIMEOUT for a stalled message.
    public mutating func tick(at now: Duration) -> [Action] {
        expireLock(at: now)
        var actions: [Action] = []
        if let current = assembly, now >= current.deadline {
            assembly = nil
            actions.append(.reject(CTAPHIDRejection(channel: current.channel, error: .messageTimeout)))
        }
        return actions
    }

    /// The host closed the device (last hidraw user gone): half-sent messages and locks are
    /// dropped (the request in flight is its owner's to end). Channels stay allocated.
    public mutating func deviceClosed() {
        assembly = nil
        lock = nil
    }

    // MARK: - Packets

    private mutating func initializationReceived(
        channel: UInt32, command: CTAPHIDCommand, length: Int, data: [UInt8], requestInFlight: UInt32?,
        at now: Duration
    ) -> [Action] {
        func reject(_ error: CTAPHIDProtocolError) -> [Action] {
            [.reject(CTAPHIDRejection(channel: channel, error: error))]
        }
        guard channel != 0 else { return reject(.invalidChannel(channel)) }
        if command == .initialize {
            return initialize(channel: channel, length: length, nonce: data, requestInFlight: requestInFlight)
        }
        guard channel != CTAPHIDPacket.broadcastChannel, isAllocated(channel) else {
            return reject(.invalidChannel(channel))
        }
        touch(channel)
        // Before the lock: CANCEL from a channel that owns nothing is ignored, never answered.
        if command == .cancel { return cancel(channel: channel, requestInFlight: requestInFlight) }
        if let lock, lock.channel != channel { return reject(.channelBusy) }
        if let current = assembly {
            guard current.channel == channel else { return reject(.channelBusy) }
            assembly = nil
            return reject(.invalidSequence(expected: current.nextSequence, received: nil))
        }
        guard requestInFlight == nil else { return reject(.channelBusy) }
        if length <= data.count {
            return messageReceived(
                CTAPHIDMessage(channel: channel, command: command, payload: Array(data.prefix(length))), at: now)
        }
        assembly = Assembly(
            channel: channel, command: command, length: length, data: data, nextSequence: 0,
            deadline: now + configuration.messageTimeout)
        return []
    }

    private mutating func continuationReceived(channel: UInt32, sequence: UInt8, data: [UInt8], at now: Duration)
        -> [Action]
    {
        // A continuation for no message in progress is spurious (e.g. after an error) and ignored.
        guard var current = assembly, current.channel == channel else { return [] }
        guard sequence == current.nextSequence else {
            assembly = nil
            return [
                .reject(
                    CTAPHIDRejection(
                        channel: channel, error: .invalidSequence(expected: current.nextSequence, received: sequence)))
            ]
        }
        current.data += data.prefix(current.length - current.data.count)
        guard current.data.count < current.length else {
            assembly = nil
            return messageReceived(
                CTAPHIDMessage(channel: channel, command: current.command, payload: current.data), at: now)
        }
        current.nextSequence += 1
        current.deadline = now + configuration.messageTimeout
        assembly = current
        return []
    }

    // MARK: - Commands

    private mutating func messageReceived(_ message: CTAPHIDMessage, at now: Duration) -> [Action] {
        let channel = message.channel
        func reject(_ error: CTAPHIDProtocolError) -> [Action] {
            [.reject(CTAPHIDRejection(channel: channel, error: error))]
        }
        func reply(_ payload: [UInt8] = []) -> Action {
            .send(CTAPHIDMessage(channel: channel, command: message.command, payload: payload))
        }
        switch message.command {
        case .ping:
            return [reply(message.payload)]
        case .wink:
            guard message.payload.isEmpty else { return reject(.invalidLength(.wink, length: message.payload.count)) }
            return [reply(), .wink]
        case .lock:
            guard message.payload.count == 1 else {
                return reject(.invalidLength(.lock, length: message.payload.count))
            }
            let seconds = message.payload[0]
            guard seconds <= 10 else { return reject(.invalidParameter(.lock)) }
            lock = seconds == 0 ? nil : (channel, now + .seconds(Int(seconds)))
            return [reply()]
        case .cbor:
            guard !message.payload.isEmpty else { return reject(.invalidLength(.cbor, length: 0)) }
            return [.startRequest(channel: channel, payload: message.payload)]
        default:
            // MSG included: a FIDO2-only key (capability NMSG) answers U2F with ERR_INVALID_CMD.
            return reject(.invalidCommand(message.command))
        }
    }

    /// INIT on the broadcast channel allocates a channel and touches no one's transaction; on an
    /// allocated channel it resynchronises that channel only: its half-sent message, its request
    /// and its lock are abandoned (§11.2.5.3). The answer echoes the nonce.
    private mutating func initialize(channel: UInt32, length: Int, nonce: [UInt8], requestInFlight: UInt32?)
        -> [Action]
    {
        func reject(_ error: CTAPHIDProtocolError) -> [Action] {
            [.reject(CTAPHIDRejection(channel: channel, error: error))]
        }
        guard length == 8 else { return reject(.invalidLength(.initialize, length: length)) }
        var actions: [Action] = []
        let assigned: UInt32
        if channel == CTAPHIDPacket.broadcastChannel {
            guard let allocated = allocateChannel(requestInFlight: requestInFlight) else {
                return reject(.channelBusy)
            }
            assigned = allocated
        } else {
            guard isAllocated(channel) else { return reject(.invalidChannel(channel)) }
            assigned = channel
            touch(channel)
            if assembly?.channel == channel { assembly = nil }
            if lock?.channel == channel { lock = nil }
            if requestInFlight == channel { actions.append(.cancelRequest(reason: .channelResynchronized)) }
        }
        let version = configuration.deviceVersion
        let payload =
            Array(nonce.prefix(8)) + CTAPHIDPacket.bigEndian(assigned)
            + [2, version.major, version.minor, version.build, configuration.capabilities.rawValue]
        actions.append(.send(CTAPHIDMessage(channel: channel, command: .initialize, payload: payload)))
        return actions
    }

    /// CANCEL for the request in flight answers it with CTAP2_ERR_KEEPALIVE_CANCEL at once; CANCEL
    /// for nothing is ignored. CANCEL itself is never answered.
    private func cancel(channel: UInt32, requestInFlight: UInt32?) -> [Action] {
        guard requestInFlight == channel else { return [] }
        return [
            .cancelRequest(reason: .cancelCommand),
            .send(CTAPHIDMessage(channel: channel, command: .cbor, payload: [CTAPStatusCode.keepaliveCancel.rawValue])),
        ]
    }

    private func isAllocated(_ channel: UInt32) -> Bool { channels.contains(channel) }

    /// Whether `channel` owns the message being received, the request being served or the lock.
    private func ownsTransaction(_ channel: UInt32, requestInFlight: UInt32?) -> Bool {
        assembly?.channel == channel || requestInFlight == channel || lock?.channel == channel
    }

    /// A fresh channel ID from ``random``: not 0, not broadcast, not in use. Forgets the least
    /// recently used idle channel when ``Configuration/maximumChannels`` are in use. `nil` when the
    /// source keeps giving unusable IDs (a broken generator), so INIT is refused, not looped on.
    private mutating func allocateChannel(requestInFlight: UInt32?) -> UInt32? {
        if channels.count >= max(configuration.maximumChannels, 1) {
            guard let idle = channels.firstIndex(where: { !ownsTransaction($0, requestInFlight: requestInFlight) })
            else {
                return nil
            }
            channels.remove(at: idle)
        }
        for _ in 0..<16 {
            let candidate = UInt32(truncatingIfNeeded: random.next())
            guard candidate != 0, candidate != CTAPHIDPacket.broadcastChannel, !channels.contains(candidate) else {
                continue
            }
            channels.append(candidate)
            return candidate
        }
        return nil
    }

    /// Marks `channel` as the most recently used.
    private mutating func touch(_ channel: UInt32) {
        guard let index = channels.firstIndex(of: channel), index != channels.count - 1 else { return }
        channels.append(channels.remove(at: index))
    }

    private mutating func expireLock(at now: Duration) {
        if let current = lock, now >= current.until { lock = nil }
    }
}

/// Why a CBOR request was cancelled.
public enum CTAPHIDCancelReason: Hashable, Sendable {
    /// The host sent CTAPHID_CANCEL (answered with CTAP2_ERR_KEEPALIVE_CANCEL).
    case cancelCommand
    /// The host sent INIT on the request's channel and so abandoned it.
    case channelResynchronized
    /// The host closed the device.
    case deviceClosed
}
