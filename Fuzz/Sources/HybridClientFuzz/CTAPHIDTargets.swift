import FuzzDriver
import HybridSecurityKey

/// CTAPHID, as `hybrid-security-key` reads it from /dev/uhid.
enum CTAPHIDTargets {
    /// One report: a packet that parses writes back to the same 64 bytes; a message split into
    /// reports reassembles to itself.
    static func packet(_ input: [UInt8]) {
        if let packet = try? CTAPHIDPacket(report: input) {
            check(packet.report == input, "CTAPHID packet round trip")
        }
        guard input.count >= 5 else { return }
        let message = CTAPHIDMessage(
            channel: UInt32(input[0]) << 24 | UInt32(input[1]) << 16 | UInt32(input[2]) << 8 | UInt32(input[3]),
            command: CTAPHIDCommand(rawValue: input[4]), payload: Array(input.dropFirst(5)))
        check(Reassembly.message(from: message.reports) == message, "CTAPHID message split and reassembled")
    }

    /// The sans-IO state machine driven by a script of host reports, whole messages, clock steps,
    /// answers from the phone and device closes (``CTAPHIDScript``), on a manual clock.
    ///
    /// Oracles, after every step: each report the key sends parses and reassembles to the message
    /// it came from; a whole CBOR message sent on an idle allocated channel is handed to the phone
    /// byte for byte; at most one request starts, and only with none in flight; only a request in
    /// flight is cancelled; an INIT answer echoes the nonce; after `tick(at: now)` nothing is
    /// overdue (no deadline at or before `now`). (The request in flight, its KEEPALIVEs and its
    /// answer are the key's core's, `SecurityKeyStateMachine`, which the model plays here.)
    static func stateMachine(_ input: [UInt8]) {
        var model = CTAPHIDModel()
        var script = CTAPHIDScript(input)
        while let step = script.next(channels: model.channels) {
            model.apply(step)
        }
    }
}

/// Reassembles the reports of one message as a host would; `nil` if they are not one message.
enum Reassembly {
    static func message(from reports: [[UInt8]]) -> CTAPHIDMessage? {
        guard let first = reports.first,
            case .initialization(let channel, let command, let length, var data)? =
                try? CTAPHIDPacket(report: first)
        else { return nil }
        var expected: UInt8 = 0
        for report in reports.dropFirst() {
            guard case .continuation(channel, let sequence, let more)? = try? CTAPHIDPacket(report: report),
                sequence == expected
            else { return nil }
            data += more
            expected += 1
        }
        guard data.count >= length else { return nil }
        return CTAPHIDMessage(channel: channel, command: command, payload: Array(data.prefix(length)))
    }
}

/// One thing that happens to the key.
enum CTAPHIDStep {
    /// Raw bytes from the host as one report (any length: wrong sizes must be ignored).
    case report([UInt8])
    /// A whole message from the host, split into reports the right way.
    case message(CTAPHIDMessage)
    /// The clock moves on; then `tick` runs.
    case advance(Duration)
    /// The phone answers the pending request (or a stale id) with this payload.
    case answer(stale: Bool, payload: [UInt8])
    /// The phone now waits for the user.
    case userPresenceNeeded
    /// The last hidraw user closed the device.
    case deviceClosed
}

/// Reads fuzz input as a sequence of ``CTAPHIDStep``s: one opcode byte, then its operands.
struct CTAPHIDScript {
    private var bytes: ArraySlice<UInt8>

    init(_ input: [UInt8]) { bytes = input[...] }

    private mutating func take(_ count: Int) -> [UInt8] {
        let taken = Array(bytes.prefix(count))
        bytes = bytes.dropFirst(taken.count)
        return taken
    }

    private mutating func byte() -> UInt8? { bytes.popFirst() }

    /// The next step; channels are picked among those the key allocated, plus broadcast and 0.
    mutating func next(channels: [UInt32]) -> CTAPHIDStep? {
        guard let opcode = byte() else { return nil }
        switch opcode % 8 {
        case 0, 1:
            return .report(take(opcode == 0 ? 64 : Int(byte() ?? 0)))
        case 2, 3:
            let candidates = channels + [0xFFFF_FFFF, 0, 0x1234_5678]
            let channel = candidates[Int(byte() ?? 0) % candidates.count]
            let command = CTAPHIDCommand(rawValue: byte() ?? 0)
            // At most 255 × 29 bytes, within CTAPHID's 7609-byte limit.
            let length = Int(byte() ?? 0) * (opcode % 8 == 3 ? 29 : 1)
            var payload = take(length)
            payload += [UInt8](repeating: 0xA5, count: length - payload.count)
            return .message(CTAPHIDMessage(channel: channel, command: command, payload: payload))
        case 4:
            return .advance(.milliseconds(Int(byte() ?? 0) * 10))
        case 5:
            let header = byte() ?? 0
            return .answer(stale: header & 0x80 != 0, payload: take(Int(header & 0x7F)))
        case 6:
            return .userPresenceNeeded
        default:
            return .deviceClosed
        }
    }
}

/// The state machine with its clock, and what the host has seen: the oracle of ``CTAPHIDTargets/stateMachine(_:)``.
/// The model plays the key's core, which owns the request in flight: it records the channel of
/// the request the machine started and passes it with every report, as `SecurityKeyStateMachine` does.
struct CTAPHIDModel {
    private var machine = CTAPHIDStateMachine()
    private var now = Duration.zero
    /// The channel of the request in flight (started, neither answered nor cancelled).
    private var inFlight: UInt32?
    /// Channels the key handed out with INIT answers.
    private(set) var channels: [UInt32] = []

    mutating func apply(_ step: CTAPHIDStep) {
        switch step {
        case .report(let report):
            handle(machine.reportReceived(report, requestInFlight: inFlight, at: now), after: nil)
        case .message(let message):
            let before = inFlight
            var actions: [CTAPHIDStateMachine.Action] = []
            for report in message.reports {
                actions += machine.reportReceived(report, requestInFlight: inFlight, at: now)
            }
            handle(actions, after: message)
            if message.command == .cbor, !message.payload.isEmpty, before == nil, channels.contains(message.channel),
                !actions.contains(where: { if case .reject = $0 { true } else { false } })
            {
                // A whole CBOR message on an allocated channel with nothing in flight reaches the phone intact.
                check(
                    actions.contains(.startRequest(channel: message.channel, payload: message.payload)),
                    "CBOR message handed to the phone byte for byte")
            }
        case .advance(let step):
            now += step
            handle(machine.tick(at: now), after: nil)
            if let deadline = machine.nextDeadline { check(deadline > now, "a deadline is overdue after tick") }
        case .answer(let stale, _):
            // The core answers its request in flight (a stale answer is dropped); the channel is
            // then free again.
            if !stale { inFlight = nil }
        case .userPresenceNeeded:
            break  // the KEEPALIVE's status is the core's
        case .deviceClosed:
            machine.deviceClosed()
            inFlight = nil
            check(machine.nextDeadline == nil, "nothing left after close")
        }
    }

    /// Checks what the key did. `message` is the whole message the host sent, if it sent one.
    private mutating func handle(_ actions: [CTAPHIDStateMachine.Action], after message: CTAPHIDMessage?) {
        var started = 0
        for action in actions {
            switch action {
            case .send(let reply):
                check(Reassembly.message(from: reply.reports) == reply, "a reply reassembles to itself")
                if reply.command == .initialize {
                    check(reply.payload.count == 17, "INIT answer length")
                    let assigned =
                        UInt32(reply.payload[8]) << 24 | UInt32(reply.payload[9]) << 16
                        | UInt32(reply.payload[10]) << 8 | UInt32(reply.payload[11])
                    if let message { check(Array(reply.payload.prefix(8)) == message.payload, "INIT echoes the nonce") }
                    if !channels.contains(assigned) { channels.append(assigned) }
                }
            case .reject(let rejection):
                check(Reassembly.message(from: rejection.message.reports) == rejection.message, "an error reassembles")
            case .startRequest(let channel, let payload):
                started += 1
                check(
                    inFlight == nil && !payload.isEmpty && channels.contains(channel),
                    "a request on a known channel, with none in flight")
                inFlight = channel
            case .cancelRequest:
                check(inFlight != nil, "only a request in flight is cancelled")
                inFlight = nil
            case .wink, .ignore:
                break
            }
        }
        check(started <= 1, "at most one request starts at a time")
    }
}
