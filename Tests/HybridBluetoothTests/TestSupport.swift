import Foundation
import Logging

@testable import HybridBluetooth

enum TestSupport {
    static let logger = Logger(label: "hybrid.bluetooth.tests", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A fresh, empty rendezvous directory for one test.
    static func temporaryAir() -> SimulatedAir {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hybrid-air-test-\(UUID().uuidString)")
            .path
        return SimulatedAir(directory: path)
    }

    static func remove(_ air: SimulatedAir) {
        try? FileManager.default.removeItem(atPath: air.directory)
    }

    /// The first advert from `stream` matching `predicate`, or `nil` if none arrives within `limit`.
    static func firstAdvert(
        from stream: AsyncThrowingStream<BLEAdvertisement, any Error>,
        within limit: Duration,
        where predicate: @escaping @Sendable (BLEAdvertisement) -> Bool = { _ in true }
    ) async throws -> BLEAdvertisement? {
        try await withThrowingTaskGroup(of: BLEAdvertisement?.self) { group in
            group.addTask {
                for try await advert in stream where predicate(advert) { return advert }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// Every advert from `stream` until `count` of them have matched `marker` (the marker's included):
    /// a negative check waits for a control advert to be heard many times, not for a time window.
    static func adverts(
        from stream: AsyncThrowingStream<BLEAdvertisement, any Error>,
        untilSeen count: Int,
        where marker: (BLEAdvertisement) -> Bool
    ) async throws -> [BLEAdvertisement] {
        var heard: [BLEAdvertisement] = []
        var markers = 0
        for try await advert in stream {
            heard.append(advert)
            if marker(advert) { markers += 1 }
            if markers == count { break }
        }
        return heard
    }

    /// A 20-byte caBLE-sized payload that differs per `seed`.
    static func eid(_ seed: UInt8) -> [UInt8] {
        (0..<20).map { UInt8(truncatingIfNeeded: Int($0) * 13 + Int(seed)) }
    }
}
