/// The stream plumbing every ``BLEScanner`` backend shares.
///
/// A scanner keeps one runner. A new scan first waits until earlier scans of the same runner whose
/// streams have ended have finished switching scanning off, so an old "scan disable" cannot land
/// after a new "scan enable" on the same adapter.
actor ScanRunner {
    /// Where a scanning body delivers adverts.
    typealias Continuation = AsyncThrowingStream<BLEAdvertisement, any Error>.Continuation
    /// The blocking body: set up, ``BlockingActivity/reportStarted(_:)``, yield adverts until the
    /// activity's wake fires, clean up, then `finish` the continuation (with an error if it failed).
    typealias Body = @Sendable (BlockingActivity, Continuation) -> Void

    /// Adverts buffered for a slow consumer before the oldest are dropped.
    static let bufferLimit = 512

    private let threadName: String
    private var activities: [BlockingActivity] = []

    init(threadName: String) {
        self.threadName = threadName
    }

    /// Runs `body` on its own thread and returns the stream once the body reports it is scanning.
    /// Terminating the stream (consumer stops iterating, or is cancelled) stops the body.
    func scan(_ body: @escaping Body) async throws -> AsyncThrowingStream<BLEAdvertisement, any Error> {
        while let stopping = activities.first(where: { $0.wake.isSignalled && !$0.isFinished }) {
            await stopping.waitUntilFinished()
        }
        activities.removeAll { $0.isFinished }
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: BLEAdvertisement.self,
            bufferingPolicy: .bufferingNewest(Self.bufferLimit)
        )
        let activity = try BlockingActivity.launch(name: threadName) { activity in body(activity, continuation) }
        activities.append(activity)
        continuation.onTermination = { _ in activity.requestStop() }
        do {
            try await activity.waitUntilStarted()
        } catch {
            continuation.finish(throwing: error)
            throw error
        }
        return stream
    }

    /// Asks every scan to stop and returns once each body has returned and its descriptors are
    /// closed (the runner held the last reference to each activity).
    func stopAll() async {
        while let activity = activities.first {
            activity.requestStop()
            await activity.waitUntilFinished()
            activities.removeAll { $0 === activity }
        }
    }
}
