import Foundation
import HybridCore
import HybridTransport
import NIOCore
import NIOPosix
import NIOWebSocket
import TestLoopbackRelay
import Testing
import TunnelRelay

@Suite(.timeLimit(.minutes(5)))
struct TunnelClientTests {
    static func url(port: Int, path: TunnelPath = .new(RelayTest.randomTunnelID())) -> TunnelURL {
        TunnelURL(origin: TunnelServerOrigin(scheme: .ws, host: "127.0.0.1", port: port), path: path)
    }

    static func binary(_ bytes: [UInt8], fin: Bool = true, opcode: WebSocketOpcode = .binary) -> WebSocketFrame {
        WebSocketFrame(fin: fin, opcode: opcode, data: ByteBuffer(bytes: bytes))
    }

    @Test func requiresTheSelectedSubprotocol() async throws {
        for headers in [[], [("Sec-WebSocket-Protocol", "chat")]] {
            try await ScriptedWebSocketServer.with(.init(headers: headers)) { port, _ async throws in
                await #expect(throws: TunnelClientError.subprotocolMissing) {
                    try await RelayTest.client.withConnection(to: Self.url(port: port)) { _ async throws in }
                }
            }
        }
    }

    @Test(arguments: [
        ([(String, String)](), TunnelClientError.routingIDMissing),
        ([("X-caBLE-Routing-ID", "010203"), ("X-caBLE-Routing-ID", "010203")], .routingIDDuplicated),
        ([("X-caBLE-Routing-ID", "01020")], .routingIDInvalid),
        ([("X-caBLE-Routing-ID", "01020G")], .routingIDInvalid),
        ([("X-caBLE-Routing-ID", "+10203")], .routingIDInvalid),
    ])
    func routingIDHeaderProblems(headers: [(String, String)], error: TunnelClientError) async throws {
        let script = ScriptedWebSocketServer.Script(headers: [("Sec-WebSocket-Protocol", "fido.cable")] + headers)
        try await ScriptedWebSocketServer.with(script) { port, _ async throws in
            try await RelayTest.client.withConnection(to: Self.url(port: port)) { connection async throws in
                #expect(throws: error) { try connection.routingID() }
            }
        }
    }

    @Test func routingIDHeaderIsCaseInsensitive() async throws {
        let script = ScriptedWebSocketServer.Script(headers: [
            ("Sec-WebSocket-Protocol", "fido.cable"), ("x-cable-routing-id", "0a0B0c"),
        ])
        try await ScriptedWebSocketServer.with(script) { port, _ async throws in
            try await RelayTest.client.withConnection(to: Self.url(port: port)) { connection async throws in
                #expect(try connection.routingID().bytes == [0x0a, 0x0b, 0x0c])
            }
        }
    }

    @Test func reassemblesFragmentsAndAnswersPings() async throws {
        var script = ScriptedWebSocketServer.Script()
        script.frames = [
            Self.binary([1, 2], fin: false),
            Self.binary([0xaa], opcode: .ping),
            Self.binary([3], fin: false, opcode: .continuation),
            Self.binary([4], opcode: .continuation),
        ]
        try await ScriptedWebSocketServer.with(script) { port, received async throws in
            try await RelayTest.client.withConnection(to: Self.url(port: port)) { connection async throws in
                var messages = connection.messages.makeAsyncIterator()
                #expect(try await RelayTest.next(&messages) == [1, 2, 3, 4])
                try await connection.send([9])
                var frames = received.makeAsyncIterator()
                var seen: [(WebSocketOpcode, [UInt8])] = []
                while seen.count < 2, let frame = await frames.next() {
                    seen.append((frame.opcode, Array(frame.data.readableBytesView)))
                }
                #expect(seen.count == 2)
                #expect(seen.contains { $0.0 == .pong && $0.1 == [0xaa] })
                #expect(seen.contains { $0.0 == .binary && $0.1 == [9] })
            }
        }
    }

    @Test func textFrameIsAnError() async throws {
        var script = ScriptedWebSocketServer.Script()
        script.frames = [Self.binary(Array("hi".utf8), opcode: .text)]
        try await ScriptedWebSocketServer.with(script) { port, _ async throws in
            try await RelayTest.client.withConnection(to: Self.url(port: port)) { connection async throws in
                var messages = connection.messages.makeAsyncIterator()
                await #expect(throws: TunnelClientError.textFrame) { _ = try await messages.next() }
            }
        }
    }

    @Test func oversizedInboundAndOutboundMessagesAreErrors() async throws {
        var configuration = TunnelClient.Configuration()
        configuration.maxMessageSize = 100
        let client = TunnelClient(configuration: configuration, logger: RelayTest.logger)
        for frames in [
            [Self.binary([UInt8](repeating: 0, count: 101))],
            [
                Self.binary([UInt8](repeating: 0, count: 60), fin: false),
                Self.binary([UInt8](repeating: 0, count: 60), opcode: .continuation),
            ],
        ] {
            var script = ScriptedWebSocketServer.Script()
            script.frames = frames
            try await ScriptedWebSocketServer.with(script) { port, _ async throws in
                try await client.withConnection(to: Self.url(port: port)) { connection async throws in
                    await #expect(throws: TunnelClientError.messageTooLarge) {
                        try await connection.send([UInt8](repeating: 0, count: 101))
                    }
                    var messages = connection.messages.makeAsyncIterator()
                    await #expect(throws: TunnelClientError.messageTooLarge) { _ = try await messages.next() }
                }
            }
        }
    }

    @Test func unreachableAndHandshakeTimeout() async throws {
        // A port that was just free: nothing listens there.
        let closed = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(
            host: "127.0.0.1", port: 0
        ).get()
        let port = closed.localAddress?.port ?? 0
        try await closed.close()
        await #expect {
            try await RelayTest.client.withConnection(to: Self.url(port: port)) { _ async throws in }
        } throws: { error in
            if case .unreachable = error as? TunnelClientError { true } else { false }
        }
        var configuration = TunnelClient.Configuration()
        configuration.handshakeTimeout = .milliseconds(200)
        let impatient = TunnelClient(configuration: configuration, logger: RelayTest.logger)
        try await ScriptedWebSocketServer.withSilentServer { port async throws in
            await #expect(throws: TunnelClientError.handshakeTimeout) {
                try await impatient.withConnection(to: Self.url(port: port)) { _ async throws in }
            }
        }
    }

    @Test func tlsWithExtraCAAndWithout() async throws {
        let certificate = LoopbackRelay.certificate
        let key = LoopbackRelay.key
        try await LoopbackRelay.with({ $0.tls = .init(certificateChain: certificate, privateKey: key) }) {
            origin async throws in
            let secure = TunnelServerOrigin(scheme: .wss, host: "localhost", port: origin.effectivePort)
            let tunnelID = RelayTest.randomTunnelID()
            var configuration = TunnelClient.Configuration()
            configuration.additionalCAFile = certificate
            let trusting = TunnelClient(configuration: configuration, logger: RelayTest.logger)
            try await trusting.withConnection(to: TunnelURL(origin: secure, path: .new(tunnelID))) {
                phone async throws in
                let routingID = try phone.routingID()
                try await trusting.withConnection(to: TunnelURL(origin: secure, path: .connect(routingID, tunnelID))) {
                    client async throws in
                    try await client.send([42])
                    var fromClient = phone.messages.makeAsyncIterator()
                    #expect(try await RelayTest.next(&fromClient) == [42])
                }
            }
            await #expect {
                try await RelayTest.client.withConnection(
                    to: TunnelURL(origin: secure, path: .new(RelayTest.randomTunnelID()))
                ) { _ async throws in }
            } throws: { error in
                if case .tlsFailure = error as? TunnelClientError { true } else { false }
            }
        }
    }
}
