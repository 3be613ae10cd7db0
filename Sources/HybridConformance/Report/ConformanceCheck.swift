/// One conformance check: what is verified, where the rule is written, what makes it a rule, and
/// how much a failure matters.
///
/// IDs are stable across releases (CI systems and bug reports refer to them): lower-case,
/// dot-separated, starting with the mode, e.g. `relay.subprotocol.echoed`.
package struct ConformanceCheck: Sendable, Hashable {
    /// Stable identifier, e.g. `phone.qr.canonical-cbor`.
    package let id: String
    /// One line saying what a conforming peer does.
    package let title: String
    /// Where the bytes are described: a protocol.md section (`protocol.md §5.2`) or a CTAP section (`CTAP 2.3 §6.1`).
    package let reference: String
    /// The normative source of the rule: a requirement of PXP, CTAP 2.3, WebAuthn, the Digital
    /// Credentials API or an RFC; a reference implementation's behaviour that peers depend on
    /// (with the protocol.md section that documents it and its source); or, for a check that is
    /// not required, why it is only advice.
    package let source: String
    /// Whether breaking the rule breaks interoperability. A broken recommendation is reported as `warn`.
    package let required: Bool

    package init(id: String, title: String, reference: String, source: String, required: Bool = true) {
        self.id = id
        self.title = title
        self.reference = reference
        self.source = source
        self.required = required
    }

    /// `required` or `optional`, as the reports write the level.
    package var level: String { required ? "required" : "optional" }
}
