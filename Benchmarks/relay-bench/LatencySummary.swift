import Histogram

/// Percentiles of round-trip durations, from an HdrHistogram (3 significant digits, 1 µs to 60 s).
struct LatencySummary {
    let count: Int
    let p50Microseconds: Double
    let p99Microseconds: Double

    /// - Parameter samples: round-trip durations in nanoseconds.
    init?(nanoseconds samples: [Int]) {
        guard !samples.isEmpty else { return nil }
        var histogram = Histogram<UInt64>(
            lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three
        )
        for sample in samples {
            // Microseconds, clamped into the trackable range.
            _ = histogram.record(UInt64(min(max(sample / 1000, 1), 60_000_000)))
        }
        count = samples.count
        p50Microseconds = Double(histogram.valueAtPercentile(50))
        p99Microseconds = Double(histogram.valueAtPercentile(99))
    }
}
