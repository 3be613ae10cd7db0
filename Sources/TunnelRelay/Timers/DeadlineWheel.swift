/// Deadlines kept in slots of a fixed width, for timers that are mostly cancelled before they
/// come (a handshake answered, a pending tunnel joined, a paired tunnel ended): adding and
/// cancelling one is O(1), and ``takeDue(at:)`` hands out every value whose deadline has passed.
/// A value never comes early, and at most one slot width plus the caller's tick late.
///
/// Sans-IO: times are nanoseconds on whatever monotonic clock the caller uses. ``RelayTimers``
/// drives one per event loop. (SwiftNIO keeps scheduled tasks in one heap per event loop and
/// finds a cancelled one by a linear search: with thousands of open tunnels each holding a
/// timer there, every cancelled timer cost a pass over all of them.)
struct DeadlineWheel<Value> {
    /// An entry's handle, for ``cancel(_:)``.
    struct Handle: Hashable, Sendable {
        fileprivate let id: UInt64
    }

    /// Width of a slot in nanoseconds.
    let slotWidth: UInt64
    private var slots: [UInt64: [UInt64: Value]] = [:]
    private var slotOfEntry: [UInt64: UInt64] = [:]
    private var nextID: UInt64 = 0
    /// Slots up to this one have been handed out.
    private var lastTakenSlot: UInt64

    /// An empty wheel whose slots are `slotWidth` nanoseconds wide (at least 1), starting at `now`.
    init(slotWidth: UInt64, now: UInt64) {
        self.slotWidth = max(slotWidth, 1)
        lastTakenSlot = now / self.slotWidth
    }

    /// Entries waiting.
    var count: Int { slotOfEntry.count }

    /// Adds `value`, due at `deadline`. A deadline already past is handed out by the next
    /// ``takeDue(at:)``.
    mutating func add(_ value: Value, deadline: UInt64) -> Handle {
        // The first slot that starts at or after the deadline: never early.
        let slot = max(deadline / slotWidth + (deadline % slotWidth == 0 ? 0 : 1), lastTakenSlot + 1)
        nextID += 1
        slots[slot, default: [:]][nextID] = value
        slotOfEntry[nextID] = slot
        return Handle(id: nextID)
    }

    /// Removes the entry of `handle`; returns its value, or `nil` if it was handed out or cancelled
    /// already.
    @discardableResult
    mutating func cancel(_ handle: Handle) -> Value? {
        guard let slot = slotOfEntry.removeValue(forKey: handle.id) else { return nil }
        let value = slots[slot]?.removeValue(forKey: handle.id)
        if slots[slot]?.isEmpty == true { slots[slot] = nil }
        return value
    }

    /// Removes and returns the values whose deadline is at or before `now`, earliest slot first
    /// (in the order they were added within a slot).
    mutating func takeDue(at now: UInt64) -> [Value] {
        let nowSlot = now / slotWidth
        guard nowSlot > lastTakenSlot else { return [] }
        let dueSlots: [UInt64]
        if nowSlot - lastTakenSlot <= UInt64(slots.count) {
            dueSlots = ((lastTakenSlot + 1)...nowSlot).filter { slots[$0] != nil }
        } else {
            dueSlots = slots.keys.filter { $0 <= nowSlot }.sorted()
        }
        lastTakenSlot = nowSlot
        var due: [Value] = []
        for slot in dueSlots {
            guard let entries = slots.removeValue(forKey: slot) else { continue }
            for (id, value) in entries.sorted(by: { $0.key < $1.key }) {
                slotOfEntry[id] = nil
                due.append(value)
            }
        }
        return due
    }
}
