import HybridConformance
import Synchronization

/// The close observations of a run's tunnels, gathered for `relay.close.propagated`.
final class CloseLog: Sendable {
    private let storage = Mutex<[(label: String, close: RelayCloseObservation)]>([])

    func add(_ label: String, _ close: RelayCloseObservation) { storage.withLock { $0.append((label, close)) } }

    var entries: [(label: String, close: RelayCloseObservation)] { storage.withLock { $0 } }
}
