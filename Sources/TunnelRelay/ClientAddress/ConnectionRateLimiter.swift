import NIOConcurrencyHelpers
import NIOCore

/// Token bucket per client (``RelayClientAddress``: an IPv4 address, an IPv6 /64): `rate` new
/// connections per second, bursts of `burst`.
final class ConnectionRateLimiter: Sendable {
    private struct Bucket: Sendable {
        var tokens: Double
        var updated: NIODeadline
    }

    private let buckets = NIOLockedValueBox([RelayClientAddress: Bucket]())
    private let rate: Double
    private let burst: Double
    /// Above this many tracked addresses, full buckets are dropped.
    private let pruneThreshold = 10_000

    init(rate: Double, burst: Int) {
        self.rate = rate
        self.burst = Double(max(burst, 1))
    }

    /// Takes a token for `address`. Returns `false` if its bucket is empty. Always `true` when
    /// the rate is 0 (disabled) or the address is unknown.
    func allow(_ address: RelayClientAddress?, now: NIODeadline) -> Bool {
        guard rate > 0, let ip = address else { return true }
        return buckets.withLockedValue { buckets in
            if buckets.count > pruneThreshold { prune(&buckets, now: now) }
            var bucket = buckets[ip] ?? Bucket(tokens: burst, updated: now)
            refill(&bucket, now: now)
            guard bucket.tokens >= 1 else {
                buckets[ip] = bucket
                return false
            }
            bucket.tokens -= 1
            buckets[ip] = bucket
            return true
        }
    }

    private func refill(_ bucket: inout Bucket, now: NIODeadline) {
        let elapsed = Double((now - bucket.updated).nanoseconds) / 1e9
        bucket.tokens = min(burst, bucket.tokens + max(0, elapsed) * rate)
        bucket.updated = now
    }

    private func prune(_ buckets: inout [RelayClientAddress: Bucket], now: NIODeadline) {
        buckets = buckets.filter { _, bucket in
            var bucket = bucket
            refill(&bucket, now: now)
            return bucket.tokens < burst
        }
    }
}
