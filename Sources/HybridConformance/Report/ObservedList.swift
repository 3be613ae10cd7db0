/// A per-message observation as a report line lists it: the first few values and how many there
/// were. A client may send millions of messages in one session (the sequence-limit probe sends
/// 2^24), and neither the judge's memory nor its report line may grow with them.
package struct ObservedList<Value: CustomStringConvertible & Sendable>: Sendable {
    /// How many values are kept and shown.
    package static var shown: Int { 16 }
    /// The first ``shown`` values, in order.
    package private(set) var first: [Value] = []
    /// How many values were appended.
    package private(set) var count = 0

    package init() {}

    package mutating func append(_ value: Value) {
        if first.count < Self.shown { first.append(value) }
        count += 1
    }

    /// Whether nothing was appended.
    package var isEmpty: Bool { count == 0 }

    /// "48, 80", or past ``shown`` values "48, 48, …, 48, … (16777217 in all)".
    package var listed: String { listed(separator: ", ") }

    /// The values joined with `separator`, and past ``shown`` values how many there were.
    package func listed(separator: String) -> String {
        let shown = first.map(\.description).joined(separator: separator)
        return count > first.count ? "\(shown)\(separator)… (\(count) in all)" : shown
    }
}
