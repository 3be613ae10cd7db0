import CBlueZ
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// A raw HCI socket bound to one adapter. It blocks, so it lives on one ``BlockingActivity``
/// thread from open to close and is deliberately not `Sendable`.
final class HCIConnection {
    let adapter: HCIAdapter
    let logger: Logger
    private let descriptor: Int32
    /// LE Meta events that arrived while a command was waiting for its answer.
    private var pendingLEMeta: [(subevent: UInt8, parameters: [UInt8])] = []

    /// How long a command may take before ``BluetoothError/commandTimedOut(opcode:)``.
    static let commandTimeoutMilliseconds: Int32 = 2000

    init(adapter: HCIAdapter, logger: Logger) throws {
        let fd = CBlueZ_openDevice(adapter.id)
        guard fd >= 0 else {
            throw BluetoothError.fromErrno(errno, operation: "open \(adapter.name)", adapter: adapter.name)
        }
        self.adapter = adapter
        self.descriptor = fd
        self.logger = logger
    }

    deinit {
        CBlueZ_closeDevice(descriptor)
    }

    /// What a blocking read produced.
    enum ReadOutcome {
        case packet([UInt8])
        case timedOut
        case woken
    }

    /// Sends `command` and waits for its Command Complete (or Command Status).
    /// - Returns: the return parameters after the status byte.
    /// - Throws: ``BluetoothError/commandFailed(opcode:hciStatus:)`` for a non-zero status,
    ///   ``BluetoothError/commandTimedOut(opcode:)``, or an errno mapping.
    @discardableResult
    func send(_ command: HCICommand) throws -> [UInt8] {
        let written = command.parameters.withUnsafeBufferPointer { parameters in
            CBlueZ_writeCommand(descriptor, command.opcode, parameters.baseAddress, UInt8(parameters.count))
        }
        guard written >= 0 else {
            throw BluetoothError.fromErrno(
                errno,
                operation: "write HCI command to \(adapter.name)",
                adapter: adapter.name
            )
        }
        let deadline = ContinuousClock.now + .milliseconds(Self.commandTimeoutMilliseconds)
        while ContinuousClock.now < deadline {
            let remaining = Self.milliseconds(until: deadline)
            guard case .packet(let packet) = try read(timeoutMilliseconds: remaining, wake: nil) else { continue }
            guard let event = try? HCIEvent(packet: packet) else {
                logger.debug("ignored a malformed HCI event", metadata: ["ble.adapter": "\(adapter.name)"])
                continue
            }
            switch event {
            case .commandComplete(let opcode, let returned) where opcode == command.opcode:
                guard let status = returned.first else { throw BluetoothError.malformedReport(.truncated) }
                guard status == 0 else { throw BluetoothError.commandFailed(opcode: opcode, hciStatus: status) }
                return Array(returned.dropFirst())
            case .commandStatus(let opcode, let status) where opcode == command.opcode:
                guard status == 0 else { throw BluetoothError.commandFailed(opcode: opcode, hciStatus: status) }
                return []
            case .leMeta(let subevent, let parameters):
                pendingLEMeta.append((subevent, parameters))
            case .commandComplete, .commandStatus, .other:
                continue
            }
        }
        throw BluetoothError.commandTimedOut(opcode: command.opcode)
    }

    /// Sends `command` and ignores a rejection (used for "switch off first" steps that fail when
    /// nothing was on). Transport errors still throw.
    func sendIgnoringRejection(_ command: HCICommand) throws {
        do {
            try send(command)
        } catch BluetoothError.commandFailed(let opcode, let status) {
            logger.trace(
                "HCI command rejected (ignored)",
                metadata: ["hci.opcode": "\(opcode)", "hci.status": "\(status)"]
            )
        }
    }

    /// The next LE Meta event, or `nil` once `wake` is signalled.
    func nextLEMeta(wake: WakeSignal) throws -> (subevent: UInt8, parameters: [UInt8])? {
        if !pendingLEMeta.isEmpty { return pendingLEMeta.removeFirst() }
        while true {
            switch try read(timeoutMilliseconds: -1, wake: wake) {
            case .woken:
                return nil
            case .timedOut:
                continue
            case .packet(let packet):
                if case .leMeta(let subevent, let parameters)? = try? HCIEvent(packet: packet) {
                    return (subevent, parameters)
                }
            }
        }
    }

    /// Discards events until `wake` is signalled (the advertiser's idle loop). Throws if the adapter
    /// goes away.
    func idle(until wake: WakeSignal) throws {
        pendingLEMeta.removeAll()
        while true {
            if case .woken = try read(timeoutMilliseconds: -1, wake: wake) { return }
        }
    }

    /// Milliseconds from now until `deadline`, rounded up (0 once it has passed), for `poll(2)`.
    static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let (seconds, attoseconds) = (deadline - .now).components
        return max(0, Int32(clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000))
    }

    private func read(timeoutMilliseconds: Int32, wake: WakeSignal?) throws -> ReadOutcome {
        var entries = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)]
        if let wake { entries.append(pollfd(fd: wake.pollDescriptor, events: Int16(POLLIN), revents: 0)) }
        let ready = poll(&entries, nfds_t(entries.count), timeoutMilliseconds)
        if ready < 0 {
            if errno == EINTR { return .timedOut }
            throw BluetoothError.fromErrno(errno, operation: "poll \(adapter.name)", adapter: adapter.name)
        }
        if ready == 0 { return .timedOut }
        if entries.count > 1 && entries[1].revents != 0 { return .woken }
        var buffer = [UInt8](repeating: 0, count: 260)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR || errno == EAGAIN { return .timedOut }
            throw BluetoothError.fromErrno(errno, operation: "read \(adapter.name)", adapter: adapter.name)
        }
        if count == 0 { throw BluetoothError.noAdapter(adapter.name) }
        return .packet(Array(buffer[0..<count]))
    }

    /// Reads the controller's supported commands and LE features.
    func readCapabilities() throws -> HCIControllerCapabilities {
        try HCIControllerCapabilities(
            commandsReturn: send(.readLocalSupportedCommands),
            featuresReturn: send(.leReadLocalSupportedFeatures)
        )
    }
}
