import Foundation
import HybridBluetooth
import HybridClient
import HybridCore
import TestFakePhone
import TestSupport

/// One ceremony on loopback: ``HybridClientRunner`` against a phone (``FakePhone``, or
/// role-auth's `AuthenticatorRunner` through ``runnerPhone(store:userInteraction:relay:air:)``),
/// through a relay, on a simulated air of its own.
struct LoopbackCeremony {
    /// Serves one session for a QR code text, as a phone would.
    typealias Phone = @Sendable (String) async throws -> FakePhone.Record

    struct Outcome: Sendable {
        var client: Result<HybridClientResponse, any Error>
        var authenticator: Result<FakePhone.Record, any Error>?
        var events: [HybridClientEvent]

        func response() throws -> HybridClientResponse { try client.get() }

        /// The client's error as a ``HybridClientError``, or `nil` if it succeeded or failed otherwise.
        var clientError: HybridClientError? {
            guard case .failure(let error) = client else { return nil }
            return error as? HybridClientError
        }
    }

    private enum ChildResult: Sendable {
        case client(Result<HybridClientResponse, any Error>)
        case authenticator(Result<FakePhone.Record, any Error>)
    }

    /// Runs `request`; the authenticator (if any) starts when the QR code is shown. `observe` sees
    /// each client event as it happens.
    static func run(
        _ request: HybridClientRequest,
        options: HybridClientOptions,
        authenticator: FakePhone?,
        observe: @escaping @Sendable (HybridClientEvent) -> Void = { _ in }
    ) async throws -> Outcome {
        var phone: Phone?
        if let authenticator {
            phone = { qrURL in try await authenticator.serve(qrURL: qrURL) }
        }
        return try await run(request, options: options, phone: phone, observe: observe)
    }

    /// Runs `request`; `phone` (if any) starts when the QR code is shown.
    ///
    /// Once the client has finished, a phone it reached (the client opened the tunnel) ends by
    /// itself when the relay passes on the client's close, and is waited for; a phone the client
    /// never reached would wait for it forever, and is cancelled.
    static func run(
        _ request: HybridClientRequest,
        options: HybridClientOptions,
        phone authenticator: Phone?,
        observe: @escaping @Sendable (HybridClientEvent) -> Void = { _ in }
    ) async throws -> Outcome {
        let runner = HybridClientRunner(options: options)
        let (events, eventSink) = AsyncStream<HybridClientEvent>.makeStream()
        let (qrURLs, qrSink) = AsyncStream<String>.makeStream()
        let reachedPhone = LockedFlag()
        let report: @Sendable (HybridClientEvent) -> Void = { event in
            if event == .handshake { reachedPhone.set() }
            observe(event)
            eventSink.yield(event)
            if case .qr(let url) = event {
                qrSink.yield(url)
                qrSink.finish()
            }
        }
        var client: Result<HybridClientResponse, any Error>?
        var phone: Result<FakePhone.Record, any Error>?
        try await withThrowingTaskGroup(of: ChildResult.self) { group in
            group.addTask { .client(await capture { try await runner.run(request, events: report) }) }
            if let authenticator {
                group.addTask {
                    .authenticator(
                        await capture {
                            var iterator = qrURLs.makeAsyncIterator()
                            guard let url = await iterator.next() else { throw TestFailure("no QR code shown") }
                            return try await authenticator(url)
                        })
                }
            }
            while client == nil || (authenticator != nil && phone == nil) {
                guard let next = try await group.next() else { break }
                switch next {
                case .client(let result):
                    client = result
                    qrSink.finish()
                    if !reachedPhone.isSet { group.cancelAll() }
                case .authenticator(let result): phone = result
                }
            }
            group.cancelAll()
        }
        eventSink.finish()
        var collected: [HybridClientEvent] = []
        for await event in events { collected.append(event) }
        guard let client else { throw TestFailure("the client did not finish") }
        return Outcome(client: client, authenticator: phone, events: collected)
    }

    /// A simulated air in a fresh temporary directory.
    static func freshAir() throws -> SimulatedAir { try SimulatedAir.fresh("hybrid-client-tests") }
}

/// A flag set from any task.
final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
