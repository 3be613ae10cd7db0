import HybridConformance
import HybridCore
import HybridDeadline
import HybridTransport

/// The checks that pair two tunnel WebSockets and watch what the relay forwards and how it closes
/// them (protocol.md §5.4), with HybridTransport's ``TunnelClient`` as both sides.
extension RelayConformanceRun {
    /// Messages the `/cable/new` side sends before anyone joins reach the joining side in order.
    ///
    /// The `/cable/new` side is a raw connection so that it can follow the messages with a ping:
    /// a relay reads a connection's frames in order, so its pong proves it has taken the messages
    /// before `/cable/connect` is even opened.
    func checkBeforePairing() async {
        let check = RelayChecks.forwardBeforePairing
        let early = [Self.randomMessage(81), Self.randomMessage(1), Self.randomMessage(300)]
        let tunnelID = Self.randomTunnelID()
        do {
            try await RelayRawConnection.with(target, tls: rawTLS(), timeout: options.stepTimeout) { phone in
                let opened = try await exchange(upgradeRequest(TunnelPath.new(tunnelID).canonicalPath), on: phone)
                guard let routingID = RelayJudge.routingIDHeader(opened).1 else {
                    record(check, RelayVerdict(.fail, "/cable/new: \(opened.summary)"))
                    return
                }
                let token = Self.randomMessage(8)
                do {
                    for message in early {
                        try await phone.sendFrame(opcode: WebSocketWireFrame.binary, payload: message)
                    }
                    try await phone.sendFrame(opcode: WebSocketWireFrame.ping, payload: token)
                } catch {
                    let close = try? await phone.readFrame()
                    let code = close.flatMap {
                        $0.opcode == WebSocketWireFrame.close && $0.payload.count >= 2
                            ? Int($0.payload[0]) << 8 | Int($0.payload[1]) : nil
                    }
                    record(
                        check,
                        RelayVerdict(
                            .fail,
                            "/cable/new was closed before the messages were sent (\(code.map { "close \($0)" } ?? "\(error)"))"
                        ))
                    return
                }
                let channel = phone.channel
                let (ponged, _) = await withDeadline(
                    after: options.stepTimeout, on: ContinuousClock(), onExpiry: { try? await channel.close() }
                ) {
                    while let frame = try? await phone.readFrame() {
                        if frame.opcode == WebSocketWireFrame.pong, frame.payload == token { return true }
                    }
                    return false
                }
                guard ponged else {
                    record(check, RelayVerdict(.fail, "no pong to a ping sent after the messages on /cable/new"))
                    return
                }
                try await tunnelClient.withConnection(to: url(.connect(routingID, tunnelID))) { client in
                    var clientMessages = client.messages.makeAsyncIterator()
                    let (received, ended) = await receive(early.count, &clientMessages, on: client)
                    record(check, RelayJudge.forwarding(sent: early, received: received, ended: ended))
                }
            }
        } catch {
            fail([check], error)
        }
    }

    /// Both directions in order, then the client closes: the relay echoes it and closes the phone.
    func checkForwardingAndClose() async {
        let toPhone = [
            Self.randomMessage(81), Self.randomMessage(200), Self.randomMessage(16_384), Self.randomMessage(2),
        ]
        let toClient = [
            Self.randomMessage(81), Self.randomMessage(1), Self.randomMessage(65_543), Self.randomMessage(90),
        ]
        await paired(
            [RelayChecks.forwardClientToPhone, RelayChecks.forwardPhoneToClient, RelayChecks.closeEchoed]
        ) { phone, phoneMessages, client, clientMessages in
            for message in toPhone { try await client.send(message) }
            let (atPhone, phoneEnded) = await receive(toPhone.count, &phoneMessages, on: phone)
            record(
                RelayChecks.forwardClientToPhone,
                RelayJudge.forwarding(sent: toPhone, received: atPhone, ended: phoneEnded))
            for message in toClient { try await phone.send(message) }
            let (atClient, clientEnded) = await receive(toClient.count, &clientMessages, on: client)
            record(
                RelayChecks.forwardPhoneToClient,
                RelayJudge.forwarding(sent: toClient, received: atClient, ended: clientEnded))

            await client.close(code: .normalClosure, timeout: options.stepTimeout)
            let echo = await client.closeInfo()
            record(
                RelayChecks.closeEchoed,
                RelayJudge.closeEchoed(
                    RelayCloseObservation(closed: true, code: echo?.code, sawCloseFrame: echo != nil), sent: 1000))
            closeLog.add(
                "/cable/connect sent close 1000, /cable/new got", await awaitClose(&phoneMessages, on: phone).0)
        }
    }

    /// A 2^20-byte message each way.
    func checkMaxSize() async {
        let toPhone = Self.randomMessage(TunnelWebSocket.maxMessageSize)
        let toClient = Self.randomMessage(TunnelWebSocket.maxMessageSize)
        await paired([RelayChecks.forwardMaxSize]) { phone, phoneMessages, client, clientMessages in
            try await client.send(toPhone)
            let (atPhone, phoneEnded) = await receive(1, &phoneMessages, on: phone)
            let up = RelayJudge.forwarding(sent: [toPhone], received: atPhone, ended: phoneEnded)
            var down = RelayVerdict(.fail, "not sent: the tunnel had ended")
            if up.outcome == .pass {
                try await phone.send(toClient)
                let (atClient, clientEnded) = await receive(1, &clientMessages, on: client)
                down = RelayJudge.forwarding(sent: [toClient], received: atClient, ended: clientEnded)
            }
            let ok = up.outcome == .pass && down.outcome == .pass
            record(
                RelayChecks.forwardMaxSize,
                RelayVerdict(
                    ok ? .pass : .fail,
                    "/cable/connect to /cable/new: \(up.observed); /cable/new to /cable/connect: \(down.observed)"))
        }
    }

    /// The phone closes: the relay closes the client.
    func checkReverseClose() async {
        await paired([]) { phone, _, client, clientMessages in
            await phone.close(code: .normalClosure, timeout: options.stepTimeout)
            closeLog.add(
                "/cable/new sent close 1000, /cable/connect got", await awaitClose(&clientMessages, on: client).0)
        }
    }

    /// The client's TCP connection drops without a close frame: the relay closes the phone.
    func checkDrop() async {
        let tunnelID = Self.randomTunnelID()
        do {
            try await tunnelClient.withConnection(to: url(.new(tunnelID))) { phone in
                let routingID = try phone.routingID()
                // Returning from the body closes the TCP connection without a close frame.
                try await tunnelClient.withConnection(to: url(.connect(routingID, tunnelID))) { _ in }
                var phoneMessages = phone.messages.makeAsyncIterator()
                let (close, _) = await awaitClose(&phoneMessages, on: phone)
                record(
                    RelayChecks.closeDropPropagated,
                    RelayJudge.closePropagated([
                        ("/cable/connect dropped TCP, /cable/new got", close)
                    ]))
            }
        } catch {
            fail([RelayChecks.closeDropPropagated], error)
        }
    }

    /// Records `relay.close.propagated` from the two directions observed above.
    func recordClosePropagation() {
        let observations = closeLog.entries
        guard !observations.isEmpty else { return }
        record(RelayChecks.closePropagated, RelayJudge.closePropagated(observations))
    }

    // MARK: Helpers

    /// Opens `/cable/new`, joins it with `/cable/connect`, and runs `body` with both sides. Failures to set up are recorded against `checks`.
    func paired(
        _ checks: [ConformanceCheck],
        _ body: (
            _ phone: TunnelConnection, _ phoneMessages: inout TunnelMessages.AsyncIterator,
            _ client: TunnelConnection, _ clientMessages: inout TunnelMessages.AsyncIterator
        ) async throws -> Void
    ) async {
        let tunnelID = Self.randomTunnelID()
        do {
            try await tunnelClient.withConnection(to: url(.new(tunnelID))) { phone in
                let routingID = try phone.routingID()
                try await tunnelClient.withConnection(to: url(.connect(routingID, tunnelID))) { client in
                    var phoneMessages = phone.messages.makeAsyncIterator()
                    var clientMessages = client.messages.makeAsyncIterator()
                    try await body(phone, &phoneMessages, client, &clientMessages)
                }
            }
        } catch {
            fail(checks, error)
        }
    }

    /// Reads up to `count` messages within the step timeout; says how the stream ended early.
    func receive(
        _ count: Int, _ messages: inout TunnelMessages.AsyncIterator, on connection: TunnelConnection
    ) async -> (messages: [[UInt8]], ended: String?) {
        var received: [[UInt8]] = []
        var failure: String?
        let limit = options.stepTimeout
        let (_, expired) = await withDeadline(
            after: limit, on: ContinuousClock(), onExpiry: { await connection.close(code: .goingAway) }
        ) {
            do {
                while received.count < count, let message = try await messages.next() { received.append(message) }
            } catch {
                failure = "\(error)"
            }
        }
        guard received.count < count else { return (received, nil) }
        if expired { return (received, "nothing more within \(RelayJudge.seconds(limit))") }
        if let failure { return (received, failure) }
        let close = await connection.closeInfo()
        return (
            received,
            "the relay closed it: "
                + (close.map { "close \($0.code.map(String.init) ?? "without a code")" } ?? "TCP closed")
        )
    }

    /// Waits (reading and discarding messages) until the relay closes the connection, within
    /// `limit` (default: the step timeout); returns how it closed and how long that took.
    func awaitClose(
        _ messages: inout TunnelMessages.AsyncIterator, on connection: TunnelConnection, limit: Duration? = nil
    ) async -> (RelayCloseObservation, Duration) {
        let clock = ContinuousClock()
        let start = clock.now
        let (_, expired) = await withDeadline(
            after: limit ?? options.stepTimeout, on: ContinuousClock(), onExpiry: { await connection.close() }
        ) {
            while (try? await messages.next()) != nil {}
        }
        let elapsed = clock.now - start
        guard !expired else { return (RelayCloseObservation(closed: false, code: nil, sawCloseFrame: false), elapsed) }
        let info = await connection.closeInfo()
        return (RelayCloseObservation(closed: true, code: info?.code, sawCloseFrame: info != nil), elapsed)
    }
}
