import HybridCore
import Synchronization

/// Which channel the client chose, when a run offers the tunnel and the BLE L2CAP channel
/// (CTAP 2.3, protocol.md §3.4): the first channel whose loop receives a message, or fails, takes
/// it, and the run serves that one only.
final class ClientChannelClaim: Sendable {
    private let holder = Mutex<DataChannelKind?>(nil)

    /// Takes the claim for `channel` if nobody holds it. Returns whether `channel` holds it now.
    func take(for channel: DataChannelKind) -> Bool {
        holder.withLock { holder in
            if holder == nil { holder = channel }
            return holder == channel
        }
    }
}
