import HybridCore
import HybridTransport
import ServiceLifecycle
import Testing
@testable import TunnelRelay

@Suite(.timeLimit(.minutes(1)))
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
                try await RelayTest.client.withConnection(to: RelayTest.connectURL(origin, routingID, tunnelID)) { client async throws in
                    try await RelayTest.client.withConnection(to: RelayTest.newURL(origin, RelayTest.randomTunnelID())) { pending async throws in
                        await services.triggerGracefulShutdown()
                        // Nobody can join a pending tunnel any more: it goes at once.
                        #expect(await RelayTest.drain(pending).code == RelayCloseCode.goingAway.rawValue)
                    }
                    // The listener is closed by now.
                    await #expect(performing: {
                        try await RelayTest.client.withConnection(to: RelayTest.newURL(origin, RelayTest.randomTunnelID())) { _ async throws in }
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
                try await RelayTest.client.withConnection(to: RelayTest.connectURL(origin, routingID, tunnelID)) { client async throws in
                    await services.triggerGracefulShutdown()
                    #expect(await RelayTest.drain(client).code == RelayCloseCode.goingAway.rawValue)
                }
                #expect(await RelayTest.drain(phone).code == RelayCloseCode.goingAway.rawValue)
            }
        }
    }
}
