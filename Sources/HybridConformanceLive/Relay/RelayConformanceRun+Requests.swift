import HybridConformance
import HybridCore
import NIOSSL

/// The checks made of single HTTP requests over raw connections (protocol.md §5.1, §5.2).
extension RelayConformanceRun {
    /// Tunnel A: the `/cable/new` upgrade itself, then, while A is pending, 409 and the two 404s.
    func checkUpgrade() async {
        let tunnelID = Self.randomTunnelID()
        let newRequest = upgradeRequest(TunnelPath.new(tunnelID).canonicalPath)
        do {
            try await RelayRawConnection.with(target, tls: rawTLS(), timeout: options.stepTimeout) { connection in
                let outcome = try await exchange(newRequest, on: connection)
                record(RelayChecks.upgradeValid, RelayJudge.upgrade(outcome, key: RelayUpgradeRequest.key))
                record(RelayChecks.subprotocolEchoed, RelayJudge.subprotocol(outcome))
                let (verdict, routingID) = RelayJudge.routingIDHeader(outcome)
                record(RelayChecks.routingIDHeader, verdict)
                if routingID != nil, let value = outcome.head?.values(TunnelWebSocket.routingIDHeader).first {
                    record(RelayChecks.routingIDUpperCase, RelayJudge.routingIDCase(value))
                }
                if target.usesTLS {
                    record(RelayChecks.tlsVersion, RelayJudge.tlsVersion(await connection.tlsVersion()))
                }
                guard outcome.upgraded else { return }

                let duplicate = await request(newRequest)
                record(RelayChecks.newDuplicate, RelayJudge.refused([("second /cable/new", duplicate)]))
                record(RelayChecks.newDuplicateStatus, RelayJudge.status(duplicate, expected: 409))
                guard let routingID else { return }
                var otherBytes = routingID.bytes
                otherBytes[2] ^= 0x5A
                let otherRoutingID = RoutingID(bytes: otherBytes)!
                let unknownRouting = await request(
                    upgradeRequest(TunnelPath.connect(otherRoutingID, tunnelID).canonicalPath))
                record(
                    RelayChecks.connectUnknownRoutingID, RelayJudge.refused([("unknown routing ID", unknownRouting)]))
                record(RelayChecks.connectUnknownRoutingIDStatus, RelayJudge.status(unknownRouting, expected: 404))
                let unknownTunnel = await request(
                    upgradeRequest(TunnelPath.connect(routingID, Self.randomTunnelID()).canonicalPath))
                record(RelayChecks.connectUnknownTunnelID, RelayJudge.refused([("unknown tunnel ID", unknownTunnel)]))
                record(RelayChecks.connectUnknownTunnelIDStatus, RelayJudge.status(unknownTunnel, expected: 404))
            }
        } catch {
            fail([RelayChecks.upgradeValid, RelayChecks.subprotocolEchoed, RelayChecks.routingIDHeader], error)
            if target.usesTLS { fail([RelayChecks.tlsVersion], error) }
        }
    }

    /// Tunnel B: `/cable/connect` joins a pending tunnel; a second `/cable/connect` is refused.
    func checkPairing() async {
        let tunnelID = Self.randomTunnelID()
        do {
            try await RelayRawConnection.with(target, tls: rawTLS(), timeout: options.stepTimeout) { phone in
                let opened = try await exchange(upgradeRequest(TunnelPath.new(tunnelID).canonicalPath), on: phone)
                guard let routingID = RelayJudge.routingIDHeader(opened).1 else { return }
                let connectPath = TunnelPath.connect(routingID, tunnelID).canonicalPath
                try await RelayRawConnection.with(target, tls: rawTLS(), timeout: options.stepTimeout) { client in
                    let joined = try await exchange(upgradeRequest(connectPath), on: client)
                    let upgrade = RelayJudge.upgrade(joined, key: RelayUpgradeRequest.key)
                    let subprotocol = RelayJudge.subprotocol(joined)
                    let ok = upgrade.outcome == .pass && subprotocol.outcome == .pass
                    record(
                        RelayChecks.connectPairs,
                        RelayVerdict(ok ? .pass : .fail, "\(upgrade.observed); \(subprotocol.observed)"))
                    guard joined.upgraded else { return }
                    let again = await request(upgradeRequest(connectPath))
                    record(RelayChecks.connectTaken, RelayJudge.refused([("second /cable/connect", again)]))
                }
            }
        } catch {
            fail([RelayChecks.connectPairs], error)
        }
    }

    /// Requests that must never be upgraded: no subprotocol, other methods, malformed paths.
    func checkRefusals() async {
        let newPath = { TunnelPath.new(Self.randomTunnelID()).canonicalPath }
        record(
            RelayChecks.subprotocolRequired,
            RelayJudge.refused([
                ("no Sec-WebSocket-Protocol", await request(upgradeRequest(newPath(), subprotocol: nil))),
                ("only \"chat\"", await request(upgradeRequest(newPath(), subprotocol: "chat"))),
            ]))
        var methods: [(label: String, outcome: RelayRequestOutcome)] = []
        for method in ["POST", "PUT", "DELETE"] {
            methods.append((method, await request(upgradeRequest(newPath(), method: method))))
        }
        record(RelayChecks.methodGetOnly, RelayJudge.refused(methods))
        var paths: [(label: String, outcome: RelayRequestOutcome)] = []
        for (label, path) in malformedPaths() { paths.append((label, await request(upgradeRequest(path)))) }
        record(RelayChecks.pathMalformed, RelayJudge.refused(paths))
    }

    /// Paths §5.1 does not allow, each with fresh IDs.
    private func malformedPaths() -> [(String, String)] {
        let hex = Self.randomTunnelID().hex
        let routing = String(Self.randomTunnelID().hex.prefix(6))
        return [
            ("31 hex digits", "/cable/new/" + hex.dropLast()),
            ("33 hex digits", "/cable/new/" + hex + "A"),
            ("non-hex digit", "/cable/new/G" + hex.dropFirst()),
            ("trailing slash", "/cable/new/" + hex + "/"),
            ("extra segment", "/cable/new/" + hex + "/00"),
            ("no tunnel ID", "/cable/new"),
            ("5-digit routing ID", "/cable/connect/" + routing.dropLast() + "/" + hex),
            ("no routing ID", "/cable/connect/" + hex),
            ("unknown endpoint", "/cable/open/" + hex),
        ]
    }

    /// §5.1: lower-case hex pairs like upper case.
    func checkLowerCase() async {
        let tunnelID = Self.randomTunnelID()
        do {
            try await RelayRawConnection.with(target, tls: rawTLS(), timeout: options.stepTimeout) { phone in
                let opened = try await exchange(upgradeRequest("/cable/new/" + tunnelID.hex.lowercased()), on: phone)
                guard let routingID = RelayJudge.routingIDHeader(opened).1 else {
                    record(RelayChecks.pathLowerCase, RelayVerdict(.fail, "lower-case /cable/new: \(opened.summary)"))
                    return
                }
                let path = "/cable/connect/\(routingID.hex.lowercased())/\(tunnelID.hex.lowercased())"
                try await RelayRawConnection.with(target, tls: rawTLS(), timeout: options.stepTimeout) { client in
                    let joined = try await exchange(upgradeRequest(path), on: client)
                    record(
                        RelayChecks.pathLowerCase,
                        RelayVerdict(
                            joined.upgraded ? .pass : .fail,
                            "lower-case /cable/new: \(opened.summary); lower-case /cable/connect: \(joined.summary)"))
                }
            }
        } catch {
            fail([RelayChecks.pathLowerCase], error)
        }
    }

    /// `wss://` only: a client limited to TLS 1.0/1.1 must not get a session.
    func checkOldTLS() async {
        do {
            let version = try await RelayRawConnection.with(
                target, tls: rawTLS(maximum: .tlsv11), timeout: options.stepTimeout
            ) {
                (connection) -> TLSProtocolVersion? in
                // Only an answer proves a session; after a failed handshake there is no version to read.
                guard case .response = try await exchange(upgradeRequest("/healthz"), on: connection) else {
                    return nil
                }
                return await connection.tlsVersion()
            }
            record(RelayChecks.tlsOldRefused, RelayJudge.oldTLSRefused(negotiated: version, error: nil))
        } catch {
            record(RelayChecks.tlsOldRefused, RelayJudge.oldTLSRefused(negotiated: nil, error: "\(error)"))
        }
    }
}
