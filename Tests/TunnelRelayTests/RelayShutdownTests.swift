import HybridCore
import HybridTransport
import ServiceLifecycle
import TestLoopbackRelay
import Testing

@testable import TunnelRelay

@Suite(.timeLimit(.minutes(5)))
struct RelayShutdownTests {
    static func isUnreachable(_ error: any Error) -> Bool {
        if case .unreachable = error as? TunnelClientError { true } else { false }
    }

    /// Runs a relay as a service-lifecycle service (so that its graceful shutdown can be triggered),
    /// calls `body`, then waits until the service group has stopped.
    static func withRelayService(
        _ configuration: RelayConfiguration = RelayTest.configuration(),
        _ body: (_ relay: RelayServer, _ origin: TunnelServerOrigin, _ services: ServiceGroup) async throws -> Void
    ) async throws {
        let relay = try await buildRelay(configuration: configuration, logger: RelayTest.logger)
        let origin = TunnelServerOrigin(scheme: .ws, host: "127.0.0.1", port: relay.port)
        let services = ServiceGroup(configuration: .init(services: [relay], logger: RelayTest.logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await services.run() }
            try await body(relay, origin, services)
            try await tasks.next()
        }
    }

    @Test func gracefulShutdownLetsLiveTunnelsFinish() async throws {
        var relayServer: RelayServer?
        try await Self.withRelayService { relay, origin, services in
            relayServer = relay
            let tunnelID = RelayTest.randomTunnelID()
            try await RelayTest.client.withConnection(to: RelayTest.newURL(origin, tunnelID)) { phone async throws in
                let routingID = try phone.routingID()
                var fromClient = phone.messages.makeAsyncIterator()
                try await RelayTest.client.withConnection(to: RelayTest.connectURL(origin, routingID, tunnelID)) {
                    client async throws in
                    try await RelayTest.client.withConnection(to: RelayTest.newURL(origin, RelayTest.randomTunnelID()))
                    { pending async throws in
                        await services.triggerGracefulShutdown()
                        // Nobody can join a pending tunnel any more: it goes at once.
                        #expect(await RelayTest.drain(pending).code == RelayCloseCode.goingAway.rawValue)
                    }
                    // The listener is closed by now.
                    await #expect(
                        performing: {
                            try await RelayTest.client.withConnection(
                                to: RelayTest.newURL(origin, RelayTest.randomTunnelID())
                            ) { _ async throws in }
                        }, throws: Self.isUnreachable)
                    // The live tunnel keeps working.
                    try await client.send([1, 2, 3])
                    #expect(try await RelayTest.next(&fromClient) == [1, 2, 3])
                    try await phone.send([4])
                    var fromPhone = client.messages.makeAsyncIterator()
                    #expect(try await RelayTest.next(&fromPhone) == [4])
                    await client.close()
                }
                #expect(await RelayTest.drain(phone, &fromClient).code == RelayCloseCode.peerClosed.rawValue)
            }
        }
        // The relay stopped once its last tunnel was gone, long before the 30 s grace period.
        #expect(relayServer?.connectionCount == 0)
    }

    @Test func gracePeriodEndsWithGoingAway() async throws {
        let configuration = RelayTest.configuration { $0.shutdownGracePeriod = .milliseconds(200) }
        try await Self.withRelayService(configuration) { _, origin, services in
            let tunnelID = RelayTest.randomTunnelID()
            try await RelayTest.client.withConnection(to: RelayTest.newURL(origin, tunnelID)) { phone async throws in
                let routingID = try phone.routingID()
                try await RelayTest.client.withConnection(to: RelayTest.connectURL(origin, routingID, tunnelID)) {
                    client async throws in
                    await services.triggerGracefulShutdown()
                    #expect(await RelayTest.drain(client).code == RelayCloseCode.goingAway.rawValue)
                }
                #expect(await RelayTest.drain(phone).code == RelayCloseCode.goingAway.rawValue)
            }
        }
    }

    /// The `/healthz` answer: status and body.
    static func health(port: Int) async throws -> (status: Int?, body: String) {
        try await RawConnection.with(port: port) { raw async throws in
            try await raw.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = String(decoding: await raw.readToEnd(), as: UTF8.self)
            return (response.httpStatus, String(response.split(separator: "\r\n\r\n").last ?? ""))
        }
    }

    /// SIGTERM behind a balancer: `/healthz` turns 503 "draining" first, while `/cable/new` and
    /// `/cable/connect` still work for the whole drain delay (here longer than the test, which ends
    /// by cancellation, so nothing depends on timing).
    @Test func drainingFailsHealthButKeepsServing() async throws {
        let configuration = RelayTest.configuration { $0.drainDelay = .seconds(3600) }
        let relay = try await buildRelay(configuration: configuration, logger: RelayTest.logger)
        let origin = TunnelServerOrigin(scheme: .ws, host: "127.0.0.1", port: relay.port)
        let services = ServiceGroup(configuration: .init(services: [relay], logger: RelayTest.logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await services.run() }
            let before = try await Self.health(port: relay.port)
            #expect(before.status == 200)
            #expect(before.body == "ok\n")
            #expect(!relay.isDraining)

            await services.triggerGracefulShutdown()
            // The shutdown handler runs on the service's task: wait for its effect.
            while !relay.isDraining { await Task.yield() }
            let during = try await Self.health(port: relay.port)
            #expect(during.status == 503)
            #expect(during.body == "draining\n")

            let tunnelID = RelayTest.randomTunnelID()
            try await RelayTest.client.withConnection(to: RelayTest.newURL(origin, tunnelID)) { phone async throws in
                let routingID = try phone.routingID()
                try await RelayTest.client.withConnection(to: RelayTest.connectURL(origin, routingID, tunnelID)) {
                    client async throws in
                    try await client.send([7])
                    var fromClient = phone.messages.makeAsyncIterator()
                    #expect(try await RelayTest.next(&fromClient) == [7])
                }
            }
            tasks.cancelAll()
            try? await tasks.waitForAll()
        }
        #expect(relay.connectionCount == 0)
    }
}
