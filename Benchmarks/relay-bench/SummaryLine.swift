import Foundation

/// One machine-readable line per benchmark phase, `summary phase=<name> key=value … load=<1m>`,
/// in insertion order, so that two runs can be compared with `grep ^summary | diff`.
struct SummaryLine {
    let phase: String
    private var fields: [(String, String)] = []

    init(phase: String) { self.phase = phase }

    subscript(key: String) -> String? {
        get { fields.first { $0.0 == key }?.1 }
        set {
            fields.removeAll { $0.0 == key }
            if let newValue { fields.append((key, newValue)) }
        }
    }

    var text: String {
        let load = RelayBenchCommand.loadAverage.split(separator: " ").first.map(String.init) ?? "?"
        return (["summary", "phase=\(phase)"] + fields.map { "\($0.0)=\($0.1)" } + ["load=\(load)"]).joined(separator: " ")
    }

    func print() { Swift.print(text) }
}
