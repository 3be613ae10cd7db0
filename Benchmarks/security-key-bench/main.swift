// The bridge's own overhead (scripts/bench-security-key.sh): for each of N getAssertion
// requests, (1) from the moment the program's request starts arriving as CTAPHID reports to
// the QR event of the phone ceremony, and (2) from the phone's response to the last CTAPHID
// report of the answer. The phone is a stand-in that answers when told, so only the bridge
// (reassembly, policy, cache lookup, task hand-offs, fragmentation) is measured; the real
// ceremony's own work before its QR code (keys, BLE scanner start) is not part of this.
import Foundation
import HybridClient
import HybridCore
import HybridSecurityKey
import Synchronization

/// A phone that shows its QR event at once, answers when the benchmark hands it a reply, and
/// closes its tunnel right after (no linger).
final class GatedPhone: PhoneCeremonyDriver, Sendable {
    let qrShown: AsyncStream<ContinuousClock.Instant>
    private let qrContinuation: AsyncStream<ContinuousClock.Instant>.Continuation
    let replies: AsyncStream<[UInt8]>
    let replyContinuation: AsyncStream<[UInt8]>.Continuation

    init() {
        (qrShown, qrContinuation) = AsyncStream.makeStream()
        (replies, replyContinuation) = AsyncStream.makeStream()
    }

    func forward(
        _ request: [UInt8], requestType: HybridRequestType, events: @escaping @Sendable (HybridClientEvent) -> Void,
        onReply: @escaping @Sendable ([UInt8]) async -> Void
    ) async throws -> HybridSessionEnd {
        events(.qr(url: "FIDO:/0"))
        qrContinuation.yield(.now)
        for await reply in replies {
            await onReply(reply)
            return HybridSessionEnd(reason: .phoneClosed)
        }
        throw CancellationError()
    }
}

func message(_ command: CTAPHIDCommand, _ payload: [UInt8], channel: UInt32) -> [[UInt8]] {
    CTAPHIDMessage(channel: channel, command: command, payload: payload).reports
}

func milliseconds(_ d: Duration) -> Double { Double(d.components.seconds) * 1e3 + Double(d.components.attoseconds) / 1e15 }
func summary(_ name: String, _ values: [Duration]) {
    let sorted = values.map(milliseconds).sorted()
    let pick = { (q: Double) in sorted[min(sorted.count - 1, Int(q * Double(sorted.count)))] }
    print(String(format: "%@: median %.3f ms, p95 %.3f ms, p99 %.3f ms, max %.3f ms (n=%d)", name, pick(0.5), pick(0.95), pick(0.99), sorted.last ?? 0, sorted.count))
}

func benchmark() async {
    let iterations = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 2000
    let phone = GatedPhone()
    let (reports, reportContinuation) = AsyncStream<ContinuousClock.Instant>.makeStream()
    // The first report (the INIT answer) is kept: it carries the channel the key allocated.
    let firstReport = Mutex<[UInt8]?>(nil)
    let bridge = SecurityKeyBridge(driver: phone, output: { report in
        firstReport.withLock { if $0 == nil { $0 = report } }
        reportContinuation.yield(.now)
    })
    var reportIterator = reports.makeAsyncIterator()
    var qrIterator = phone.qrShown.makeAsyncIterator()

    // Allocate a channel.
    for report in message(.initialize, [1, 2, 3, 4, 5, 6, 7, 8], channel: 0xFFFF_FFFF) { await bridge.reportReceived(report) }
    _ = await reportIterator.next()
    // INIT answer: channel 4, command 1, length 2, nonce 8, then the allocated channel ID.
    guard let initAnswer = firstReport.withLock({ $0 }) else { fatalError("no INIT answer") }
    let channel = initAnswer[15...18].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }

    // A realistic assertion reply: ~ 300 bytes (credential, authData, signature, user).
    let reply: [UInt8] = [0x00] + CBOREncoder.encode(.map([
        CBORMapEntry(1, .map([CBORMapEntry(.text("id"), .bytes([UInt8](repeating: 7, count: 64))), CBORMapEntry(.text("type"), .text("public-key"))])),
        CBORMapEntry(2, .bytes([UInt8](repeating: 9, count: 37))),
        CBORMapEntry(3, .bytes([UInt8](repeating: 3, count: 71))),
        CBORMapEntry(4, .map([CBORMapEntry(.text("id"), .bytes([UInt8](repeating: 5, count: 32)))])),
    ]))
    let replyReports = CTAPHIDMessage(channel: channel, command: .cbor, payload: reply).reports.count

    var toQR: [Duration] = []
    var toLastPacket: [Duration] = []
    for index in 0..<iterations {
        var hash = [UInt8](repeating: 0, count: 32)
        hash[0] = UInt8(truncatingIfNeeded: index)
        hash[1] = UInt8(truncatingIfNeeded: index >> 8)
        let request: [UInt8] = [0x02] + CBOREncoder.encode(.map([
            CBORMapEntry(1, .text("example.com")), CBORMapEntry(2, .bytes(hash)),
            CBORMapEntry(3, .array([.map([CBORMapEntry(.text("id"), .bytes([UInt8](repeating: 7, count: 64))), CBORMapEntry(.text("type"), .text("public-key"))])])),
        ]))
        let start = ContinuousClock.now
        for report in message(.cbor, request, channel: channel) { await bridge.reportReceived(report) }
        guard let shown = await qrIterator.next() else { fatalError("no QR event") }
        toQR.append(shown - start)
        let answered = ContinuousClock.now
        phone.replyContinuation.yield(reply)
        var last = answered
        for _ in 0..<replyReports {
            guard let at = await reportIterator.next() else { fatalError("answer cut short") }
            last = at
        }
        toLastPacket.append(last - answered)
    }

    summary("request -> QR event    ", toQR)
    summary("response -> last packet", toLastPacket)
}

await benchmark()
