import HybridTransport
import NIOCore
import NIOWebSocket
import TestLoopbackRelay
import Testing

/// `TunnelConnection.close`: the close frame goes out even from a cancelled task, and close waits
/// for the server's echo only when there is a connection to answer it.
///
/// The tests that must not wait pass an echo timeout of an hour: if close waited for its timer
/// instead of the event, the test would hang past the suite's time limit instead of passing.
@Suite(.timeLimit(.minutes(5)))
struct TunnelClientCloseTests {
    static let never: Duration = .seconds(3600)

    /// Connects to a server running `script`, sends the message `[7]` (so the outbound writer is
    /// in use), runs `body`, then returns the first `count` frames the server received.
    static func afterSendingOne(
        _ script: ScriptedWebSocketServer.Script,
        thenFrames count: Int,
        _ body: (TunnelConnection) async throws -> Void
    ) async throws -> [(WebSocketOpcode, [UInt8])] {
        try await ScriptedWebSocketServer.with(script) { port, received async throws in
            try await RelayTest.client.withConnection(to: TunnelClientTests.url(port: port)) {
                connection async throws in
                try await connection.send([7])
                try await body(connection)
            }
            var seen: [(WebSocketOpcode, [UInt8])] = []
            for await frame in received {
                seen.append((frame.opcode, Array(frame.data.readableBytesView)))
                if seen.count == count { break }
            }
            return seen
        }
    }

    @Test func cancelledTaskStillSendsTheCloseFrameAndReturnsOnTheEcho() async throws {
        var script = ScriptedWebSocketServer.Script()
        script.echoClose = true
        let seen = try await Self.afterSendingOne(script, thenFrames: 2) { connection in
            let wasCancelled = await Task {
                withUnsafeCurrentTask { $0?.cancel() }
                let cancelled = Task.isCancelled
                await connection.close(code: .goingAway, timeout: Self.never)
                return cancelled
            }.value
            #expect(wasCancelled)
            // The server's echo of our code (1001) ended the connection, not the timer.
            #expect(await connection.closeInfo()?.code == 1001)
        }
        #expect(seen.count == 2)
        #expect(seen.first.map { $0.0 == .binary && $0.1 == [7] } == true)
        #expect(seen.last.map { $0.0 == .connectionClose && $0.1 == [0x03, 0xe9] } == true)
    }

    @Test func closeAfterTheServerDroppedReturnsAtOnce() async throws {
        var script = ScriptedWebSocketServer.Script()
        script.dropOnMessage = true
        let seen = try await Self.afterSendingOne(script, thenFrames: 1) { connection in
            // The messages end when the client has seen the drop.
            var messages = connection.messages.makeAsyncIterator()
            while try await messages.next() != nil {}
            await connection.close(timeout: Self.never)
            #expect(await connection.closeInfo() == nil)
        }
        #expect(seen.count == 1)
    }

    /// A live server that never answers the close frame: the echo timeout ends the wait (here
    /// zero, so the test waits for nothing) and the connection ends without the server's close.
    /// The frame is written before the timer starts, so even a zero timeout does not drop it.
    @Test func echoTimeoutBoundsASilentServer() async throws {
        let seen = try await Self.afterSendingOne(.init(), thenFrames: 2) { connection in
            await connection.close(timeout: .zero)
            #expect(await connection.closeInfo() == nil)
        }
        #expect(seen.last.map { $0.0 == .connectionClose && $0.1 == [0x03, 0xe8] } == true)
    }
}
