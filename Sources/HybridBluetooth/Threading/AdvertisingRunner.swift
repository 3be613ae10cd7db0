/// The start/stop bookkeeping every ``BLEAdvertiser`` backend shares.
///
/// Each advert runs as one ``BlockingActivity``. Starting a new advert first stops the previous one
/// and waits until its body has switched advertising off, so two bodies never drive one adapter at
/// once (an old "disable" can never land after a new "enable").
actor AdvertisingRunner {
    /// Builds the blocking body that puts `advert` on the air until the activity's wake fires.
    typealias Body = @Sendable (BLEServiceDataAdvert, BlockingActivity) -> Void

    private let threadName: String
    private let body: Body
    private var current: BlockingActivity?
    private var stopping: [BlockingActivity] = []

    init(threadName: String, body: @escaping Body) {
        self.threadName = threadName
        self.body = body
    }

    func start(_ advert: BLEServiceDataAdvert) async throws {
        try advert.validate()
        await stopAll()
        // No suspension between stopAll() finding nothing running and `current` being set.
        let body = self.body
        let activity = try BlockingActivity.launch(name: threadName) { activity in body(advert, activity) }
        current = activity
        do {
            try await activity.waitUntilStarted()
        } catch {
            if current === activity { current = nil }
            throw error
        }
    }

    func stop() async {
        await stopAll()
    }

    private func stopAll() async {
        while current != nil || !stopping.isEmpty {
            if let running = current {
                current = nil
                running.requestStop()
                stopping.append(running)
            }
            if let next = stopping.first {
                await next.waitUntilFinished()
                stopping.removeAll { $0 === next }
            }
        }
    }
}

extension BLEServiceDataAdvert {
    /// Longest service data any backend accepts: one AD structure (length byte ≤ 255, so 4 + 251
    /// bytes) is further limited by the 251 bytes of one LE Set Extended Advertising Data command.
    public static let maximumServiceDataLength = 247

    /// Checks the interval (20 ms ... 10.24 s, Core spec Vol 4 Part E §7.8.5) and the data length.
    func validate() throws {
        guard interval >= .milliseconds(20), interval <= .milliseconds(10_240) else {
            throw BluetoothError.invalidInterval(interval)
        }
        guard serviceData.count <= Self.maximumServiceDataLength else {
            throw BluetoothError.advertisingDataTooLong(
                length: serviceData.count + 4,
                maximum: Self.maximumServiceDataLength + 4
            )
        }
    }

    /// The interval in whole milliseconds (the value is validated to lie in 20 ... 10240).
    var intervalMilliseconds: Int {
        let (seconds, attoseconds) = interval.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}
