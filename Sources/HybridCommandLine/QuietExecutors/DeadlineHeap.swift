/// Items that wait for a deadline, earliest first; items with equal deadlines leave in the order
/// they came. Sans-IO: the caller says what time it is, so tests drive it without a clock.
///
/// A binary min-heap: inserting and removing one item cost O(log n).
package struct DeadlineHeap<Deadline: Comparable, Item> {
    private struct Entry {
        let deadline: Deadline
        /// Order of arrival, so that equal deadlines keep it.
        let sequence: UInt64
        let item: Item

        func isEarlier(than other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : sequence < other.sequence
        }
    }

    private var entries: [Entry] = []
    private var nextSequence: UInt64 = 0

    package init() {}

    /// How many items wait.
    package var count: Int { entries.count }

    /// The deadline due first, or `nil` when nothing waits.
    package var earliestDeadline: Deadline? { entries.first?.deadline }

    /// Adds `item`, due at `deadline`.
    package mutating func insert(_ item: Item, dueAt deadline: Deadline) {
        entries.append(Entry(deadline: deadline, sequence: nextSequence, item: item))
        nextSequence &+= 1
        siftUp(from: entries.count - 1)
    }

    /// Removes and returns, earliest first, every item whose deadline is at or before `now`.
    package mutating func removeDue(at now: Deadline) -> [Item] {
        var due: [Item] = []
        while let first = entries.first, first.deadline <= now {
            due.append(first.item)
            let last = entries.removeLast()
            if !entries.isEmpty {
                entries[0] = last
                siftDown(from: 0)
            }
        }
        return due
    }

    private mutating func siftUp(from start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].isEarlier(than: entries[parent]) else { return }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            var earliest = parent
            for child in [2 * parent + 1, 2 * parent + 2]
            where child < entries.count && entries[child].isEarlier(than: entries[earliest]) {
                earliest = child
            }
            guard earliest != parent else { return }
            entries.swapAt(parent, earliest)
            parent = earliest
        }
    }
}
