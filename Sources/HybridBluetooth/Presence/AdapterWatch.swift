import CBlueZ
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Watches the adapter a backend uses and reports when it goes away and comes back, through
/// ``AdapterPresence``.
///
/// The kernel drives the adapter of both `.hci` and `.bluez` (when the kernel has Bluetooth at
/// all), so both are watched the same way:
/// `HCIGETDEVINFO` (an unprivileged ioctl) on a thread of its own, every ``defaultInterval``,
/// its `HCI_UP` flag or its `errno` fed to ``AdapterPresence``. Powering off (`btmgmt power off`,
/// `bluetoothctl power off`), rfkill and removing the controller all show there. The simulated
/// air has no adapter to lose: its stream never reports anything.
package enum AdapterWatch {
    /// How often the adapter is looked at: a lost adapter is noticed within this.
    package static let defaultInterval: Duration = .milliseconds(200)

    /// The adapter's changes, until the consumer stops iterating. When the adapter is missing or
    /// down at the start, the first element is ``AdapterPresence/Change/vanished(_:)``.
    package static func changes(
        of backend: BLEBackend, every interval: Duration = defaultInterval
    ) -> AsyncStream<AdapterPresence.Change> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: AdapterPresence.Change.self, bufferingPolicy: .unbounded)
        let name: String?
        switch backend {
        case .hci(let adapter): name = adapter
        case .bluez(let adapter):
            // bluetoothd may drive an adapter the kernel does not have (a test bluetoothd on the
            // session bus, a userspace controller): with no kernel Bluetooth to look at there is
            // nothing this watch can say, and the backend reports its own errors.
            guard CBlueZ_probeKernel() == 0 else { return stream }
            name = adapter
        case .simulated: return stream
        }
        let stopped = StopFlag()
        continuation.onTermination = { _ in stopped.flag.store(true, ordering: .relaxed) }
        let pause = useconds_t(
            max(1, interval.components.seconds * 1_000_000 + interval.components.attoseconds / 1_000_000_000_000))
        let thread = Thread {
            var presence = AdapterPresence(adapter: name ?? firstAdapterName())
            while !stopped.flag.load(ordering: .relaxed) {
                if let change = presence.observe(look(at: name)) { continuation.yield(change) }
                usleep(pause)
            }
        }
        thread.name = "adapter-watch"
        thread.start()
        return stream
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

    /// One look at adapter `name` (`nil`: the first one that is up, as ``HCIAdapter/resolve(_:)``
    /// picks). Blocking (ioctl).
    private static func look(at name: String?) -> AdapterPresence.Observation {
        guard let name else {
            if CBlueZ_firstUpDevice() >= 0 { return .deviceInfo(isUp: true) }
            return HCIAdapter.allIDs().isEmpty ? .systemCallFailed(errno: ENODEV) : .deviceInfo(isUp: false)
        }
        guard name.hasPrefix("hci"), let id = Int32(name.dropFirst(3)) else {
            return .systemCallFailed(errno: ENODEV)
        }
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

    private final class StopFlag: Sendable {
        let flag = Atomic<Bool>(false)
    }
}

/// The adapter a role needs went away (``AdapterWatch/failingWhenGone(_:_:)``).
package struct AdapterGone: Error, Equatable, CustomStringConvertible {
    /// Why: missing, down or blocked, in words a person can act on.
    package var error: BluetoothError

    package var description: String { error.description }
}
