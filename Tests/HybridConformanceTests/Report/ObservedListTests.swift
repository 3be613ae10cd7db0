import HybridConformance
import Testing

/// A report line's per-message list stays bounded however many messages a session carries.
@Suite struct ObservedListTests {
    @Test("a short list is shown whole")
    func shortListIsShownWhole() {
        var lengths = ObservedList<Int>()
        for length in [224, 32] { lengths.append(length) }
        #expect(lengths.listed == "224, 32")
        #expect(lengths.count == 2)
    }

    @Test("a million values keep 16 and say how many there were")
    func longListKeepsTheFirstAndTheCount() {
        var lengths = ObservedList<Int>()
        for index in 0..<1_000_000 { lengths.append(index) }
        #expect(lengths.first == Array(0..<16))
        #expect(lengths.count == 1_000_000)
        #expect(lengths.listed == (0..<16).map(String.init).joined(separator: ", ") + ", … (1000000 in all)")
        #expect(lengths.listed(separator: "; ").hasSuffix("14; 15; … (1000000 in all)"))
        #expect(!lengths.isEmpty && ObservedList<Int>().isEmpty)
    }
}
