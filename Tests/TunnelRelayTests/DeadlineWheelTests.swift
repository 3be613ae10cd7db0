import TestSeededRandom
import Testing

@testable import TunnelRelay

/// ``DeadlineWheel``'s contract: a value never comes before its deadline, comes at the first
/// ``DeadlineWheel/takeDue(at:)`` whose slot is at or past the deadline's (so at most one slot
/// width late), comes once, and never after it was cancelled.
struct DeadlineWheelTests {
    @Test func handsOutWhatIsDueAndNothingEarly() {
        var wheel = DeadlineWheel<String>(slotWidth: 100, now: 1_000)
        _ = wheel.add("b", deadline: 1_250)
        _ = wheel.add("a", deadline: 1_200)
        let cancelled = wheel.add("c", deadline: 1_210)
        _ = wheel.add("late", deadline: 9_999)
        #expect(wheel.cancel(cancelled) == "c")
        #expect(wheel.takeDue(at: 1_199).isEmpty)
        #expect(wheel.takeDue(at: 1_200) == ["a"])  // 1 200 starts its slot: due exactly on time
        #expect(wheel.takeDue(at: 1_299).isEmpty)  // 1 250 rounds up to the slot at 1 300
        #expect(wheel.takeDue(at: 1_300) == ["b"])
        #expect(wheel.cancel(cancelled) == nil)
        #expect(wheel.count == 1)
        #expect(wheel.takeDue(at: 50_000) == ["late"])  // a long gap: no slot-by-slot walk
        #expect(wheel.count == 0)
    }

    @Test func aDeadlineAlreadyPastComesAtTheNextTake() {
        var wheel = DeadlineWheel<Int>(slotWidth: 50, now: 10_000)
        _ = wheel.add(1, deadline: 0)
        #expect(wheel.takeDue(at: 10_049).isEmpty)  // still in the slot already handed out
        #expect(wheel.takeDue(at: 10_050) == [1])
    }

    /// Random adds, cancels and takes against the contract, with a printed seed.
    @Test func randomScheduleKeepsTheContract() {
        let seed = UInt64.random(in: 0...UInt64.max)
        print("DeadlineWheelTests.randomScheduleKeepsTheContract seed \(seed)")
        var random = SeededRandom(seed: seed)
        let width: UInt64 = 64
        var now: UInt64 = 1_000
        var wheel = DeadlineWheel<Int>(slotWidth: width, now: now)
        // Each waiting value's deadline, its slot (the first that starts at or after the deadline and
        // has not been handed out when the value was added) and its handle.
        var waiting: [Int: (deadline: UInt64, slot: UInt64, handle: DeadlineWheel<Int>.Handle)] = [:]
        var handedOut = Set<Int>()
        var lastTake = now
        for value in 0..<5_000 {
            switch UInt8.random(in: 0..<10, using: &random) {
            case 0..<5:
                let deadline = now + UInt64.random(in: 0...2_000, using: &random) - 200
                let slot = max(deadline / width + (deadline % width == 0 ? 0 : 1), lastTake / width + 1)
                waiting[value] = (deadline, slot, wheel.add(value, deadline: deadline))
            case 5..<7:
                guard let victim = waiting.keys.randomElement(using: &random), let entry = waiting[victim] else {
                    break
                }
                #expect(wheel.cancel(entry.handle) == victim, "seed \(seed)")
                waiting[victim] = nil
            default:
                now += UInt64.random(in: 0...300, using: &random)
                lastTake = now
                for due in wheel.takeDue(at: now) {
                    let deadline = waiting[due]?.deadline
                    #expect(deadline.map { $0 <= now } == true, "early or unknown \(due), seed \(seed)")
                    #expect(handedOut.insert(due).inserted, "twice: \(due), seed \(seed)")
                    waiting[due] = nil
                }
                // Everything whose deadline's slot has passed has come out.
                for (value, entry) in waiting {
                    #expect(entry.slot > now / width, "late: \(value), seed \(seed)")
                }
            }
            #expect(wheel.count == waiting.count, "seed \(seed)")
        }
    }
}
