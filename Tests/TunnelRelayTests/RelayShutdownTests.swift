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

    @Test func gracefulShutdownLetsLiveTunnelsFinish() async throws {
        let relay = try await buildRelay(configuration: RelayTest.configuration(), logger: RelayTest.logger)
        let origin = TunnelServerOrigin(scheme: .ws, host: "127.0.0.1", port: relay.port)
        let services = ServiceGroup(configuration: .init(services: [relay], logger: RelayTest.logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await services.run() }
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
            // The relay stops once its last tunnel is gone, long before the 30 s grace period.
            try await tasks.next()
            #expect(relay.connectionCount == 0)
        }
    }

    @Test func gracePeriodEndsWithGoingAway() async throws {
        let configuration = RelayTest.configuration { $0.shutdownGracePeriod = .milliseconds(200) }
        let relay = try await buildRelay(configuration: configuration, logger: RelayTest.logger)
        let origin = TunnelServerOrigin(scheme: .ws, host: "127.0.0.1", port: relay.port)
        let services = ServiceGroup(configuration: .init(services: [relay], logger: RelayTest.logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await services.run() }
            let tunnelID = RelayTest.randomTunnelID()
            try await RelayTest.client.withConnection(to: RelayTest.newURL(origin, tunnelID)) { phone async throws in
                let routingID = try phone.routingID()
                try await RelayTest.client.withConnection(to: RelayTest.connectURL(origin, routingID, tunnelID)) { client async throws in
                    await services.triggerGracefulShutdown()
                    #expect(await RelayTest.drain(client).code == RelayCloseCode.goingAway.rawValue)
                }
                #expect(await RelayTest.drain(phone).code == RelayCloseCode.goingAway.rawValue)
            }
            try await tasks.next()
        }
    }
}
