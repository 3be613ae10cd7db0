/// The lists of recent silent probes, per RP ID, so that the real request that follows a claimed
/// probe can get its whole list back (``BridgeRequestPolicy``). Sans-IO: times are passed in.
///
/// Hosts reduce the list after a claim: Firefox (authenticator-rs) and python-fido2 send only
/// the claimed ID; python-fido2 sends the placeholder ID `0x00` when no probe matched. A request
/// whose list is such a reduction of the probes for its RP within
/// ``BridgeRequestPolicy/probeWindow`` gets the union of those probes' lists (all chunks, in
/// order, without duplicates); the probes are then forgotten, so one probe restores one request.
/// A list that is not a subset (Chromium's whole lists, another site's request) is left alone.
struct ProbeMemory: Sendable {
    struct Probe: Sendable {
        var rpID: String
        var ids: [[UInt8]]
        var time: Duration
    }

    /// At most this many probes are kept (a long list in chunks of 20 is a few probes).
    static let capacity = 32

    private(set) var probes: [Probe] = []

    mutating func record(rpID: String, ids: [[UInt8]], at now: Duration) {
        expire(at: now)
        probes.append(Probe(rpID: rpID, ids: ids, time: now))
        if probes.count > Self.capacity { probes.removeFirst(probes.count - Self.capacity) }
    }

    /// The list to send instead of `ids` for a request to `rpID`, or `nil` to leave it unchanged.
    mutating func restoration(of ids: [[UInt8]], rpID: String, at now: Duration) -> [[UInt8]]? {
        expire(at: now)
        guard !ids.isEmpty else { return nil }
        var union: [[UInt8]] = []
        for probe in probes where probe.rpID == rpID {
            for id in probe.ids where !union.contains(id) { union.append(id) }
        }
        guard !union.isEmpty else { return nil }
        let placeholder = ids == [[0x00]]
        guard placeholder || ids.allSatisfy(union.contains) else { return nil }
        probes.removeAll { $0.rpID == rpID }
        return union.count > ids.count || (placeholder && union != ids) ? union : nil
    }

    private mutating func expire(at now: Duration) {
        probes.removeAll { now - $0.time >= BridgeRequestPolicy.probeWindow }
    }
}
