import Logging

/// ``BLEScanner`` on the ``SimulatedAir`` (a simulation: Unix datagram sockets, no radio). RSSI is `nil`.
public struct SimulatedAirScanner: BLEScanner {
    private let air: SimulatedAir
    private let logger: Logger
    private let runner = ScanRunner(threadName: "simulated-air-scanner")

    /// A scanner of `air`.
    public init(air: SimulatedAir, logger: Logger) {
        self.air = air
        self.logger = logger
    }

    /// Ends every scan of this scanner and returns once each has finished (see
    /// ``BLEScanner/stopScanning()``).
    public func stopScanning() async {
        await runner.stopAll()
    }

    /// Registers in the air's directory and returns once registered: every advert sent after this
    /// returns is received.
    public func scan(for uuids: Set<UInt16>) async throws -> AsyncThrowingStream<BLEAdvertisement, any Error> {
        let registry = SimulatedAirRegistry(directory: air.directory)
        let logger = self.logger
        return try await runner.scan { activity, continuation in
            Self.receive(
                uuids: uuids,
                registry: registry,
                activity: activity,
                continuation: continuation,
                logger: logger
            )
        }
    }

    private static func receive(
        uuids: Set<UInt16>,
        registry: SimulatedAirRegistry,
        activity: BlockingActivity,
        continuation: ScanRunner.Continuation,
        logger: Logger
    ) {
        let socket: SimulatedAirSocket
        do {
            socket = try registry.register()
        } catch {
            activity.reportStarted(.failure(error))
            return
        }
        defer { registry.unregister(socket) }
        activity.reportStarted(.success(()))
        do {
            while let datagram = try socket.receive(wake: activity.wake) {
                guard let advert = try? SimulatedAirDatagram.decode(datagram) else {
                    logger.debug("simulated air: ignored a malformed datagram")
                    continue
                }
                if uuids.contains(advert.uuid16) { continuation.yield(advert) }
            }
            continuation.finish()
        } catch {
            continuation.finish(throwing: error)
        }
    }
}
