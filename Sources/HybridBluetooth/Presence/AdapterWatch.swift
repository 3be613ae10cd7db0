import CBlueZ
import Foundation
import HybridThreads

#if canImport(Glibc)
    import Glibc
#endif

/// Watches the adapter a backend uses and reports when it goes away and comes back, through
/// ``AdapterPresence``.
///
/// `.bluez` is watched through bluetoothd's signals (``watchBluetoothd(_:until:report:)``), and
/// through the kernel when bluetoothd cannot be reached. `.hci` is watched from the kernel's
/// management channel
/// (`HCI_CHANNEL_CONTROL`, BlueZ `doc/mgmt-api.txt`) on a thread of its own that blocks until the
/// kernel says something: Read Controller Information gives the adapter's state at the start (and
/// makes the kernel report that controller's power changes to management sockets), then Index
/// Added, Index Removed and New Settings events say when it comes, goes, or is powered on or off.
/// bluetoothd's and btmgmt's power changes, `hciconfig down`, rfkill and removing the controller
/// all show there; an unprivileged socket receives them. Both block until something is said: no
/// timer runs. The simulated air has no adapter to lose: its stream never reports anything.
package enum AdapterWatch {
    /// The adapter's changes, until the consumer stops iterating. When the adapter is missing or
    /// down at the start, the first element is ``AdapterPresence/Change/vanished(_:)``.
    package static func changes(of backend: BLEBackend) -> AsyncStream<AdapterPresence.Change> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: AdapterPresence.Change.self, bufferingPolicy: .unbounded)
        let backend = backend
        if case .simulated = backend { return stream }
        guard let stop = try? WakeSignal() else { return stream }
        continuation.onTermination = { _ in stop.signal() }
        let thread = Thread {
            nameCurrentThread("adapter-watch")
            let report = { (change: AdapterPresence.Change) in _ = continuation.yield(change) }
            switch backend {
            case .hci(let name):
                var presence = AdapterPresence(adapter: name ?? firstAdapterName())
                watch(&presence, until: stop, report: report)
            case .bluez(let name):
                if watchBluetoothd(name, until: stop, report: report) { break }
                // bluetoothd cannot be reached: the kernel's view of the adapter, when the kernel
                // has Bluetooth (else the backend reports its own errors).
                guard CBlueZ_probeKernel() == 0 else {
                    waitForever(on: stop)
                    break
                }
                var presence = AdapterPresence(adapter: name ?? firstAdapterName())
                watch(&presence, until: stop, report: report)
            case .simulated: break
            }
            continuation.finish()
        }
        thread.start()
        return stream
    }

    /// Feeds what the management channel says about `presence`'s adapter to it until `stop` is
    /// signalled, blocking in between. Without a management socket (no kernel Bluetooth), one look
    /// with `HCIGETDEVINFO`, then nothing more to say.
    private static func watch(
        _ presence: inout AdapterPresence, until stop: WakeSignal, report: (AdapterPresence.Change) -> Void
    ) {
        let adapter = presence.adapter
        guard adapter.hasPrefix("hci"), let index = UInt16(adapter.dropFirst(3)) else {
            if let change = presence.observe(.systemCallFailed(errno: ENODEV)) { report(change) }
            return waitForever(on: stop)
        }
        let descriptor = CBlueZ_openManagement()
        guard descriptor >= 0 else {
            if let change = presence.observe(look(at: Int32(index))) { report(change) }
            return waitForever(on: stop)
        }
        defer { close(descriptor) }
        askForInformation(index, on: descriptor)
        var buffer = [UInt8](repeating: 0, count: 512)
        while true {
            var entries = [
                pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: stop.pollDescriptor, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&entries, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if entries[1].revents != 0 { return }
            guard entries[0].revents & Int16(POLLIN) != 0 else { return }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard count > 0 else { return }
            let packet = Array(buffer[0..<count])
            let observation: AdapterPresence.Observation?
            if let event = try? ManagementMessage.presenceEvent(from: packet) {
                // A controller registered anew is a new device to the kernel: ask again, so that
                // its power changes are reported too.
                if event == .indexAdded(index: index) { askForInformation(index, on: descriptor) }
                observation = event.observation
            } else {
                observation = (try? ManagementMessage.informationReply(to: index, from: packet))?
                    .observation(index: index)
            }
            if let observation, let change = presence.observe(observation) { report(change) }
        }
    }

    /// Sends Read Controller Information for `index`; its answer arrives as an event.
    private static func askForInformation(_ index: UInt16, on descriptor: Int32) {
        let command = ManagementMessage.readInformation(index: index)
        _ = command.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }

    static func waitForever(on stop: WakeSignal) {
        while !stop.wait(milliseconds: -1) {}
    }

    /// Returns the error once the adapter goes away (at once if it is not there now); `nil` if
    /// the task is cancelled first. For a role that must stop when its adapter is gone.
    package static func vanishing(of backend: BLEBackend) async -> BluetoothError? {
        for await change in changes(of: backend) {
            if case .vanished(let why) = change { return why }
        }
        return nil
    }

    /// Runs `body`; when the adapter goes away first (or is not there at the start), cancels it
    /// and throws ``AdapterGone`` with the adapter's error. For a role whose ceremony cannot go
    /// on without its adapter.
    package static func failingWhenGone<Result: Sendable>(
        _ backend: BLEBackend, _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                if let why = await vanishing(of: backend) { throw AdapterGone(error: why) }
                return nil
            }
            defer { group.cancelAll() }
            while let next = try await group.next() {
                if let result = next { return result }
            }
            throw CancellationError()
        }
    }

    /// One look at adapter `hci<id>` with `HCIGETDEVINFO` (blocking ioctl).
    private static func look(at id: Int32) -> AdapterPresence.Observation {
        var info = CBlueZ_DeviceInfo()
        guard CBlueZ_deviceInfo(id, &info) == 0 else { return .systemCallFailed(errno: errno) }
        return .deviceInfo(isUp: info.isUp != 0)
    }

    /// The name the first adapter has now, for messages; `hci0` when there is none.
    private static func firstAdapterName() -> String {
        let up = CBlueZ_firstUpDevice()
        if up >= 0 { return "hci\(up)" }
        return HCIAdapter.allIDs().first.map { "hci\($0)" } ?? "hci0"
    }
}

/// The adapter a role needs went away (``AdapterWatch/failingWhenGone(_:_:)``).
package struct AdapterGone: Error, Equatable, CustomStringConvertible {
    /// Why: missing, down or blocked, in words a person can act on.
    package var error: BluetoothError

    package var description: String { error.description }
}
