import Foundation

/// HAProxy's standard error, line by line as a thread drains it, so a test can wait for what
/// HAProxy announces there, such as `Server relays_any/relay02 is DOWN, reason: …`: the event
/// itself, with no polling. Waits end when the line comes, when HAProxy's stderr ends (EOF), or
/// when the waiting task is cancelled.
final class HAProxyLog: @unchecked Sendable {
    private struct Waiter {
        let from: Int
        let matches: @Sendable (Substring) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
    }

    private let lock = NSLock()
    private var lines: [Substring] = []
    private var pending = ""
    private var ended = false
    private var waiters: [UUID: Waiter] = [:]

    /// Lines received so far: a mark for ``waitForLine(after:where:)``.
    var count: Int { lock.withLock { lines.count } }

    /// Adds what was read; each complete line wakes the waiters it matches.
    func append(_ text: String) {
        let woken: [CheckedContinuation<Bool, Never>] = lock.withLock {
            pending += text
            var parts = pending.split(separator: "\n", omittingEmptySubsequences: false)
            pending = String(parts.removeLast())
            lines += parts
            return take { waiter in lines[waiter.from...].contains(where: waiter.matches) }
        }
        for continuation in woken { continuation.resume(returning: true) }
    }

    /// HAProxy's stderr ended: nothing more will come.
    func end() {
        let woken: [CheckedContinuation<Bool, Never>] = lock.withLock {
            ended = true
            return take { _ in true }
        }
        for continuation in woken { continuation.resume(returning: false) }
    }

    /// Waits for a line at index `mark` or later that `matches`; `false` if stderr ended first.
    func waitForLine(after mark: Int, where matches: @escaping @Sendable (Substring) -> Bool) async throws -> Bool {
        let id = UUID()
        let found = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let answer: Bool? = lock.withLock {
                    if lines[min(mark, lines.count)...].contains(where: matches) { return true }
                    if ended || Task.isCancelled { return false }
                    waiters[id] = Waiter(from: mark, matches: matches, continuation: continuation)
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            let waiter = lock.withLock { waiters.removeValue(forKey: id) }
            waiter?.continuation.resume(returning: false)
        }
        try Task.checkCancellation()
        return found
    }

    /// Removes and returns the waiters `satisfied` picks (call with the lock held).
    private func take(_ satisfied: (Waiter) -> Bool) -> [CheckedContinuation<Bool, Never>] {
        let done = waiters.filter { satisfied($0.value) }
        for id in done.keys { waiters[id] = nil }
        return done.values.map(\.continuation)
    }
}
