/// The phone's successful answers, kept for a short window so that a program that repeats the
/// very same request (same command and CBOR bytes, hence the same RP ID hash and clientDataHash)
/// gets the answer again without a second QR code. Sans-IO: the caller passes `now`.
///
/// Only byte-identical requests match, so an answer is never reused across relying parties or
/// client data. Only successes are kept (an error is worth a retry). At most ``capacity``
/// entries; each expires ``window`` after it was stored.
package struct BridgeResponseCache: Sendable {
    /// How long an answer is reused: 30 s. In the browser proof, Chromium's identical repeat came
    /// more than 10 s after the phone's answer once under load (its sheet closes first); an
    /// identical request carries the same clientDataHash, so a longer window reuses nothing new.
    package static let defaultWindow: Duration = .seconds(30)

    private struct Entry: Sendable {
        var request: [UInt8]
        var response: [UInt8]
        var expiry: Duration
    }

    /// How long after it was stored an answer is reused.
    package let window: Duration
    /// The most answers kept at once; storing beyond it drops the oldest.
    package let capacity: Int
    private var entries: [Entry] = []

    /// An empty cache whose answers expire `window` after they are stored, at most `capacity` at once.
    package init(window: Duration = Self.defaultWindow, capacity: Int = 8) {
        self.window = window
        self.capacity = capacity
    }

    /// The stored answer to exactly `request`, if it has not expired.
    package mutating func answer(to request: [UInt8], at now: Duration) -> [UInt8]? {
        entries.removeAll { $0.expiry <= now }
        return entries.first { $0.request == request }?.response
    }

    /// Keeps `response` for `request` when its status is OK.
    package mutating func store(_ response: [UInt8], for request: [UInt8], at now: Duration) {
        guard response.first == 0x00 else { return }
        entries.removeAll { $0.expiry <= now || $0.request == request }
        entries.append(Entry(request: request, response: response, expiry: now + window))
        if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
    }
}
