import HAProxySupport
import NIOCore
import NIOPosix
import Testing

/// The frontend socket handed to HAProxy holds its port from the moment it is created, so no
/// other process can take the port before HAProxy listens; and it refuses connections until the
/// child listens, so "accepts a connection" means "the child is ready".
struct InheritedListenerTests {
    @Test func holdsItsPortAndRefusesUntilSomeoneListens() async throws {
        let listener = try InheritedListener()
        #expect(listener.port > 0)
        await #expect(throws: IOError.self) {
            let other = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .bind(host: "127.0.0.1", port: listener.port).get()
            try await other.close()
        }
        await #expect(throws: (any Error).self) {
            let client = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: listener.port).get()
            try await client.close()
        }
        listener.close()
        // Once closed (as after the child exits), the port is free again.
        let rebound = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: listener.port).get()
        try await rebound.close()
    }
}
