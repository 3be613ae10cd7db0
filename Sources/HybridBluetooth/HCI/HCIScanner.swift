import Logging

/// ``BLEScanner`` over a raw HCI socket (libbluetooth through CBlueZ).
///
/// Passive scanning, duplicates not filtered; understands LE Advertising Reports (0x02) and LE
/// Extended Advertising Reports (0x0D). All HCI I/O happens on a dedicated thread per scan; malformed
/// reports are skipped (logged at debug). One scan per adapter at a time: a second scan on the same
/// adapter takes the controller over.
///
/// Needs CAP_NET_RAW and CAP_NET_ADMIN (or root); on a desktop prefer ``BlueZDBusScanner``.
public struct HCIScanner: BLEScanner {
    private let adapter: String?
    private let commandFamily: HCICommandFamily
    private let logger: Logger
    private let runner = ScanRunner(threadName: "hci-scanner")

    /// - Parameters:
    ///   - adapter: `hciN`, or `nil` for the first adapter that is up.
    ///   - commandFamily: legacy or extended commands; `.automatic` picks per controller.
    ///   - logger: where controller and scanning problems are logged.
    public init(adapter: String?, commandFamily: HCICommandFamily = .automatic, logger: Logger) {
        self.adapter = adapter
        self.commandFamily = commandFamily
        self.logger = logger
    }

    /// Ends every scan of this scanner and returns once each has finished (see
    /// ``BLEScanner/stopScanning()``).
    public func stopScanning() async {
        await runner.stopAll()
    }

    /// The adverts under `uuids`, until the stream is dropped or the socket fails.
    public func scan(for uuids: Set<UInt16>) async throws -> AsyncThrowingStream<BLEAdvertisement, any Error> {
        let (adapter, family, logger) = (self.adapter, commandFamily, self.logger)
        return try await runner.scan { activity, continuation in
            Self.scan(
                uuids: uuids,
                adapter: adapter,
                family: family,
                activity: activity,
                continuation: continuation,
                logger: logger
            )
        }
    }

    private static func scan(
        uuids: Set<UInt16>,
        adapter name: String?,
        family: HCICommandFamily,
        activity: BlockingActivity,
        continuation: ScanRunner.Continuation,
        logger: Logger
    ) {
        let connection: HCIConnection
        let active: HCIConnection.ActiveScanning
        do {
            connection = try HCIConnection(adapter: try HCIAdapter.resolve(name), logger: logger)
            active = try connection.startScanning(family: family)
        } catch {
            activity.reportStarted(.failure(error))
            return
        }
        logger.debug("scanning", metadata: ["ble.adapter": "\(connection.adapter.name)", "ble.commands": "\(active)"])
        activity.reportStarted(.success(()))
        var failure: (any Error)?
        do {
            while let event = try connection.nextLEMeta(wake: activity.wake) {
                guard
                    event.subevent == LEAdvertisingReport.legacySubevent
                        || event.subevent == LEAdvertisingReport.extendedSubevent
                else { continue }
                let reports: [LEAdvertisingReport]
                do {
                    reports = try LEAdvertisingReport.parse(subevent: event.subevent, parameters: event.parameters)
                } catch {
                    logger.debug("skipped a malformed advertising report event", metadata: ["error": "\(error)"])
                    continue
                }
                for report in reports {
                    do {
                        for advert in try report.adverts(for: uuids) { continuation.yield(advert) }
                    } catch {
                        logger.debug(
                            "skipped a report with malformed AD structures",
                            metadata: ["ble.address": "\(report.address)"]
                        )
                    }
                }
            }
        } catch {
            failure = error
        }
        do {
            try connection.stopScanning(active)
        } catch {
            logger.debug(
                "could not switch scanning off",
                metadata: ["ble.adapter": "\(connection.adapter.name)", "error": "\(error)"]
            )
        }
        continuation.finish(throwing: failure)
    }
}
