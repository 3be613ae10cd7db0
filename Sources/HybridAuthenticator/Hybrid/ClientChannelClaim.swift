import Synchronization

/// Which serve loop carries the session, when a run offers the tunnel and the BLE L2CAP channel
/// (CTAP 2.3, protocol.md §3.4), and perhaps several L2CAP channels at once: the first loop whose
/// channel brings the client's first message (or, for the tunnel, fails) takes it, and the run
/// serves that one only.
final class ClientChannelClaim: Sendable {
    /// One serve loop's identity.
    final class Claimant: Sendable {}

    private let holder = Mutex<ObjectIdentifier?>(nil)

    /// Takes the claim for `claimant` if nobody holds it. Returns whether `claimant` holds it now.
    func take(for claimant: Claimant) -> Bool {
        holder.withLock { holder in
            if holder == nil { holder = ObjectIdentifier(claimant) }
            return holder == ObjectIdentifier(claimant)
        }
    }
}
