import HybridAuthenticator
import HybridBluetooth
import HybridCore
import Synchronization
import TestFakePhone
import TestLoopbackRelay
import TestManualClock
import TestSupport
import Testing

@testable import HybridClient

/// ``HybridClientRunner/forward(ctapRequest:requestType:events:onReply:)``, the security key's
/// path, lingers like ``HybridClientRunner/run(_:events:onResponse:)`` (protocol.md §7.5): the
/// reply bytes reach the caller at once, a late update still arrives. The clock is manual and
/// never moves: only the phone's close ends these lingers.
@Suite(.timeLimit(.minutes(5))) struct ForwardLingerTests {
    /// Forwards a makeCredential to a ``FakePhone`` with `behaviour`; `onReply` runs when
    /// the caller gets the reply.
    static func forward(
        phone behaviour: FakePhone.Behaviour, onReply: @escaping @Sendable ([UInt8]) -> Void
    ) async throws -> (end: HybridSessionEnd, phone: FakePhone.Record) {
        let air = try LoopbackCeremony.freshAir()
        return try await LoopbackRelay.with { relay in
            var options = LoopbackCeremonyTests.options(relay: relay, air: air)
            options.clock = ManualClock()
            let runner = HybridClientRunner(options: options)
            let authenticator = FakePhone(relay: relay, air: air, behaviour: behaviour)
            let request = try LoopbackCeremonyTests.registration().ctapRequest(authenticatorInfo: nil)
            let (qrURLs, qrSink) = AsyncStream<String>.makeStream()
            async let phone = capture {
                var iterator = qrURLs.makeAsyncIterator()
                guard let url = await iterator.next() else { throw TestFailure("no QR code shown") }
                return try await authenticator.serve(qrURL: url)
            }
            let end = await capture {
                try await runner.forward(ctapRequest: request, requestType: .makeCredential) { event in
                    if case .qr(let url) = event { qrSink.yield(url) }
                } onReply: { reply in
                    onReply(reply)
                }
            }
            qrSink.finish()
            return (try end.get(), try await phone.get())
        }
    }

    /// The phone sends its signed late linking update only once the caller holds the reply bytes,
    /// then closes: the update is received (validated and counted by the session), and the reply
    /// is the phone's own bytes.
    @Test func replyFirstThenTheLateUpdateIsReceived() async throws {
        let (replied, replySignal) = AsyncStream<Void>.makeStream()
        let delivered = Mutex<[UInt8]?>(nil)
        let outcome = try await Self.forward(
            phone: .lateLinkingUpdate(gate: {
                for await _ in replied { break }
            }),
            onReply: { reply in
                delivered.withLock { $0 = reply }
                replySignal.yield()
                replySignal.finish()
            })
        #expect(outcome.end == HybridSessionEnd(reason: .phoneClosed, lateUpdates: 1))
        #expect(outcome.phone.shutdownReceived)
        let reply = delivered.withLock { $0 }
        #expect(reply != nil && reply == outcome.phone.ctapResponse)
        #expect(reply?.first == 0x00)
    }

    /// A phone that closes after the shutdown ends the linger at once.
    @Test func phoneCloseEndsTheLingerAtOnce() async throws {
        let outcome = try await Self.forward(phone: .normal, onReply: { _ in })
        #expect(outcome.end == HybridSessionEnd(reason: .phoneClosed, lateUpdates: 0))
        #expect(outcome.phone.shutdownReceived)
    }
}
