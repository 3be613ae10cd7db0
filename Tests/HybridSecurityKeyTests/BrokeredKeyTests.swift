import Foundation
import HybridKeyBroker
import Testing

@testable import HybridSecurityKey

#if canImport(Glibc)
    import Glibc
#endif

/// The agent's end of the key broker against a stand-in broker on a real `SOCK_SEQPACKET` socket:
/// it asks for its key first, sends only 64-byte input reports, and turns each broker message into
/// an event, a broken message or a closed connection into `disconnected`.
@Suite struct BrokeredKeyTests {
    /// A listening socket in a fresh private directory; the agent connects, the test accepts.
    final class StandInBroker {
        let directory: String
        let path: String
        let listener: Int32
        var connection: Int32 = -1

        init() throws {
            directory = try #require(
                mkdtemp(strdup(NSTemporaryDirectory() + "brokered-key.XXXXXX")).map { String(cString: $0) })
            path = directory + "/socket"
            listener = socket(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            try #require(bound == 0 && listen(listener, 4) == 0)
        }

        deinit {
            if connection >= 0 { close(connection) }
            close(listener)
            unlink(path)
            rmdir(directory)
        }

        /// Accepts the agent, which connected already (the connection waits in the backlog).
        func accept() throws {
            connection = Glibc.accept(listener, nil, nil)
            try #require(connection >= 0)
        }

        /// The next datagram the agent sent (it is already queued when this is called).
        func receive() -> [UInt8] {
            var buffer = [UInt8](repeating: 0, count: 512)
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            return count > 0 ? Array(buffer[0..<count]) : []
        }

        func send(_ bytes: [UInt8]) {
            _ = bytes.withUnsafeBytes { Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
    }

    @Test func asksForItsKeyThenCarriesReportsAndEvents() async throws {
        let broker = try StandInBroker()
        let key = try BrokeredKey(socketPath: broker.path)
        try broker.accept()
        #expect(broker.receive() == [0x01, KeyBrokerMessage.version])

        var events = key.events.makeAsyncIterator()
        broker.send(BrokerMessage.created(hidraw: "/dev/hidraw7").encoded)
        #expect(await events.next() == .created(hidraw: "/dev/hidraw7"))

        let report = (0..<64).map { UInt8($0) }
        try key.send(report)
        #expect(broker.receive() == [0x02] + report)

        broker.send([0x82] + report)
        #expect(await events.next() == .output(report))
        broker.send([0x83])
        #expect(await events.next() == .closed)
        broker.send([0x84, KeyBrokerRefusal.sessionNotActive.rawValue])
        #expect(await events.next() == .removed(.sessionNotActive))
        broker.send([0x85, KeyBrokerRefusal.keyInUse.rawValue])
        #expect(await events.next() == .refused(.keyInUse))
        #expect(!key.lostTheBroker)

        // The broker goes away: one last event, and the agent knows it lost the broker.
        close(broker.connection)
        broker.connection = -1
        guard case .disconnected = await events.next() else {
            Issue.record("expected disconnected")
            return
        }
        #expect(await events.next() == nil)
        #expect(key.lostTheBroker)
    }

    @Test func aMalformedBrokerMessageEndsTheConnection() async throws {
        let broker = try StandInBroker()
        let key = try BrokeredKey(socketPath: broker.path)
        try broker.accept()
        _ = broker.receive()
        var events = key.events.makeAsyncIterator()
        // An output report of 63 bytes: not a message of the protocol.
        broker.send([0x82] + [UInt8](repeating: 0, count: 63))
        guard case .disconnected(let reason) = await events.next() else {
            Issue.record("expected disconnected")
            return
        }
        #expect(reason.contains("wrong length"))
        #expect(key.lostTheBroker)
    }

    @Test func noBrokerIsAClearError() throws {
        #expect(throws: BrokeredKeyError.self) { try BrokeredKey(socketPath: "/nonexistent/hybrid-key-broker/socket") }
        do {
            _ = try BrokeredKey(socketPath: "/nonexistent/hybrid-key-broker/socket")
        } catch {
            #expect(error.description.contains("cannot reach the key broker"))
        }
    }
}
