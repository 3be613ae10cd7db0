import Foundation
import HybridDBus
import HybridThreads
import Synchronization

/// Blocking work (HCI sockets, D-Bus, UDP) on its own OS thread, so it never occupies the Swift
/// cooperative thread pool.
///
/// The body runs on a fresh thread. It sets up (opens the adapter, sends commands), reports the
/// outcome with ``reportStarted(_:)``, and then works until ``wake`` is signalled, which
/// ``requestStop()`` does. Async code waits for those two moments with ``waitUntilStarted()`` and
/// ``waitUntilFinished()``. Every stored property is an immutable `Sendable` value, so the class is
/// `Sendable` without any unchecked conformance; the body's own handles never leave its thread.
final class BlockingActivity: Sendable {
    /// Signalled when the activity should stop; the body polls it alongside its own descriptor.
    let wake: WakeSignal
    private let started = OneShot<Result<Void, any Error>>()
    private let finished = OneShot<Void>()

    private init(wake: WakeSignal) {
        self.wake = wake
    }

    /// Starts `body` on a new thread named `name`.
    ///
    /// The thread lets go of `body` (and what it captured) and of the activity before it reports
    /// the body finished, so that whoever holds the activity last closes ``wake`` at a known time,
    /// not whenever the thread object happens to be freed.
    static func launch(name: String, _ body: @escaping @Sendable (BlockingActivity) -> Void) throws -> BlockingActivity
    {
        let activity = BlockingActivity(wake: try WakeSignal())
        let work = PendingBody(activity: activity, body: body)
        let (started, finished) = (activity.started, activity.finished)
        let thread = Thread {
            nameCurrentThread(name)
            if let pending = work.take() { pending.body(pending.activity) }
            started.fulfil(.failure(BluetoothError.unavailable(reason: "\(name) ended before it started")))
            finished.fulfil(())
        }
        thread.start()
        return activity
    }

    /// Called by the body once: `.success` when it is running, or the reason it could not start.
    func reportStarted(_ result: Result<Void, any Error>) {
        started.fulfil(result)
    }

    /// Asks the body to stop (signals ``wake``).
    func requestStop() {
        wake.signal()
    }

    /// Waits until the body reported its start.
    ///
    /// If the body failed to start, waits until it has finished cleaning up and rethrows its error.
    /// If the calling task is cancelled, requests a stop, waits until the body has finished, and
    /// throws `CancellationError`.
    func waitUntilStarted() async throws {
        let result = await withTaskCancellationHandler {
            await started.value
        } onCancel: {
            wake.signal()
        }
        switch result {
        case .failure(let error):
            await finished.value
            throw error
        case .success:
            if Task.isCancelled {
                requestStop()
                await finished.value
                throw CancellationError()
            }
        }
    }

    /// Whether the body has returned (does not wait).
    var isFinished: Bool {
        finished.isSet
    }

    /// Waits until the body has returned.
    func waitUntilFinished() async {
        await finished.value
    }
}

/// The body a thread is to run and its activity, handed over once.
private final class PendingBody: Sendable {
    private let slot: Mutex<(activity: BlockingActivity, body: @Sendable (BlockingActivity) -> Void)?>

    init(activity: BlockingActivity, body: @escaping @Sendable (BlockingActivity) -> Void) {
        slot = Mutex((activity: activity, body: body))
    }

    /// The activity and body, the first time; `nil` after.
    func take() -> (activity: BlockingActivity, body: @Sendable (BlockingActivity) -> Void)? {
        slot.withLock { $0.take() }
    }
}
