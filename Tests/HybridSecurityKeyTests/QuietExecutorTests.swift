import Foundation
import HybridCommandLine
import Synchronization
import TestSeededRandom
import Testing
@_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency

/// The key's executors (HybridCommandLine/QuietExecutors): the deadline heap against a stable
/// sort, and a private `QuietTaskExecutor` running jobs now and at deadlines on its own threads.
@Suite struct QuietExecutorTests {
    @Test func heapReleasesOnlyWhatIsDueEarliestFirst() {
        var heap = DeadlineHeap<Int, String>()
        heap.insert("c", dueAt: 30)
        heap.insert("a", dueAt: 10)
        heap.insert("b", dueAt: 20)
        #expect(heap.earliestDeadline == 10)
        #expect(heap.removeDue(at: 9).isEmpty)
        #expect(heap.removeDue(at: 20) == ["a", "b"])
        #expect(heap.earliestDeadline == 30)
        #expect(heap.removeDue(at: 100) == ["c"])
        #expect(heap.earliestDeadline == nil)
        #expect(heap.count == 0)
    }

    /// Random deadlines, many equal, released in random steps: each step gives exactly what a
    /// stable sort by deadline puts at or before that time, in that order.
    @Test func heapMatchesAStableSort() {
        var random = SeededRandom.forProperty()
        for _ in 0..<200 {
            var heap = DeadlineHeap<Int, Int>()
            var reference: [(deadline: Int, item: Int)] = []
            for item in 0..<Int.random(in: 0...60, using: &random) {
                let deadline = Int.random(in: 0...15, using: &random)
                heap.insert(item, dueAt: deadline)
                reference.append((deadline, item))
            }
            var sorted = reference.enumerated().sorted {
                $0.element.deadline != $1.element.deadline
                    ? $0.element.deadline < $1.element.deadline : $0.offset < $1.offset
            }.map(\.element)
            var now = -1
            while !sorted.isEmpty {
                now += Int.random(in: 0...4, using: &random)
                let expected = sorted.prefix { $0.deadline <= now }.map(\.item)
                sorted.removeFirst(expected.count)
                #expect(heap.removeDue(at: now) == expected)
                #expect(heap.earliestDeadline == sorted.first?.deadline)
            }
        }
    }

    /// A task that prefers the executor runs on its worker threads, before and after it suspends.
    @Test func tasksRunOnTheWorkers() async {
        let executor = QuietTaskExecutor(workers: 2)
        let threads = await Task(executorPreference: executor) {
            let before = currentThreadName()
            await Task.yield()
            return [before, currentThreadName()]
        }.value
        #expect(threads.allSatisfy { $0.hasPrefix("quiet-worker-") }, "\(threads)")
    }

    /// Jobs due now run at once on the worker; jobs with deadlines run on it in deadline order,
    /// whatever order they were scheduled in, and not before their deadline. One worker, so that
    /// the order of runs is the order of release, and the job due now is scheduled first, so that
    /// a test thread preempted on a loaded machine cannot let a deadline pass before it.
    @Test func runsJobsNowAndAtTheirDeadlines() async throws {
        let executor = QuietTaskExecutor(workers: 1)
        let clock = ContinuousClock()
        let (start, suspendingStart) = (clock.now, SuspendingClock.now)
        let runs = Mutex<[(label: String, thread: String, at: ContinuousClock.Instant)]>([])
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            func job(_ label: String, last: Bool = false) -> ExecutorJob {
                _swift_createJobForTestingOnly {
                    runs.withLock { $0.append((label, currentThreadName(), clock.now)) }
                    if last { done.resume() }
                }
            }
            // Deadlines from `start` on two clocks, and the latest as a delay from whenever it is
            // scheduled (never before `start` + 60 ms), so that their order holds however slowly
            // the test thread gets here.
            executor.enqueue(job("now"))
            executor.enqueue(
                job("40ms"), at: suspendingStart.advanced(by: .milliseconds(40)), tolerance: nil,
                clock: SuspendingClock())
            executor.enqueue(job("20ms"), at: start.advanced(by: .milliseconds(20)), tolerance: nil, clock: clock)
            executor.enqueue(
                job("60ms", last: true), after: .milliseconds(60), tolerance: nil, clock: SuspendingClock())
        }
        let recorded = runs.withLock { $0 }
        #expect(recorded.map(\.label) == ["now", "20ms", "40ms", "60ms"])
        #expect(recorded.allSatisfy { $0.thread.hasPrefix("quiet-worker-") }, "\(recorded.map(\.thread))")
        for run in recorded where run.label != "now" {
            let milliseconds = Int(run.label.dropLast(2))!
            #expect(start.duration(to: run.at) >= .milliseconds(milliseconds))
        }
    }
}

/// The name of the thread running the caller (synchronous, so that async code may ask).
private func currentThreadName() -> String { Thread.current.name ?? "" }
