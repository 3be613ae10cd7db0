/// One conformance check: what is verified, where the rule is written, and how much a failure matters.
///
/// IDs are stable across releases (CI systems and bug reports refer to them): lower-case,
/// dot-separated, starting with the mode, e.g. `relay.subprotocol.echoed`.
package struct ConformanceCheck: Sendable, Hashable {
    /// Stable identifier, e.g. `phone.qr.canonical-cbor`.
    package let id: String
    /// One line saying what a conforming peer does.
    package let title: String
    /// Where the rule is written: a protocol.md section (`protocol.md §5.2`) or a CTAP section (`CTAP 2.2 §6.1`).
    package let reference: String
    /// Whether breaking the rule breaks interoperability. A broken recommendation is reported as `warn`.
    package let required: Bool

    package init(id: String, title: String, reference: String, required: Bool = true) {
        self.id = id
        self.title = title
        self.reference = reference
        self.required = required
    }
}
