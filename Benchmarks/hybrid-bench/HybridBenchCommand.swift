import ArgumentParser
import Foundation

/// `hybrid-bench`: times full hybrid ceremonies on loopback and the CPU cost of the handshake.
@main
struct HybridBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hybrid-bench",
        abstract:
            "Benchmark: N full ceremonies on loopback (relay, client, authenticator in one process, simulated air, auto-approve), and the CPU time of one Noise KNpsk0 handshake per side next to the raw P-256 operations it needs."
    )

    @Option(name: .shortAndLong, help: "Number of timed ceremonies (after warm-up).")
    var ceremonies = 200

    @Option(help: "Untimed ceremonies first.")
    var warmup = 5

    @Option(help: "Handshakes (and raw operation sets) per CPU measurement.")
    var handshakes = 2000

    func run() async throws {
        let timings = try await CeremonyBenchmark(count: ceremonies, warmup: warmup).run()
        let sorted = timings.sorted()
        print("ceremonies: \(sorted.count) (makeCredential and getAssertion alternating), QR shown → response")
        print(
            String(
                format: "  median %.2f ms   p99 %.2f ms   min %.2f ms   max %.2f ms",
                percentile(sorted, 0.5), percentile(sorted, 0.99), sorted.first ?? 0, sorted.last ?? 0))
        let cpu = HandshakeBenchmark(iterations: handshakes).run()
        print("handshake CPU per side (µs): initiator \(format(cpu.initiator))   responder \(format(cpu.responder))")
        print(
            "raw P-256 per side (µs): keygen \(format(cpu.keyGeneration)) + 2 × ECDH \(format(cpu.ecdh)) + point decode \(format(cpu.pointDecode)) = \(format(cpu.rawPerSide))"
        )
        print(
            String(
                format: "  ratio handshake / raw: initiator %.2f   responder %.2f",
                cpu.initiator / cpu.rawPerSide, cpu.responder / cpu.rawPerSide))
        print("  besides: 2 × public-key serialization (x963Representation) per side \(format(2 * cpu.pointEncode)) µs")
    }

    private func format(_ microseconds: Double) -> String { String(format: "%.1f", microseconds) }
}

/// The `q` quantile of ascending `values` (nearest rank).
func percentile(_ values: [Double], _ q: Double) -> Double {
    guard !values.isEmpty else { return 0 }
    let rank = Int((q * Double(values.count)).rounded(.up)) - 1
    return values[min(max(rank, 0), values.count - 1)]
}
