import HybridConformance
import HybridCore
import HybridDeadline
import HybridTransport
import Logging
import NIOSSL

/// `hybrid-conformance relay URL`: drives a running relay through the checks of ``RelayChecks``
/// over real sockets and reports each one.
package struct RelayConformanceRun: Sendable {
    package struct Options: Sendable {
        /// PEM file of extra CA certificates trusted for `wss://`.
        package var caFile: String?
        /// Run the checks that wait out the relay's timeouts.
        package var slow = false
        /// The bounds the slow checks judge against.
        package var limits = RelayTimingLimits()
        /// Longest wait for one answer from the relay (a conforming relay answers in milliseconds).
        package var stepTimeout: Duration = .seconds(10)

        package init() {}
    }

    let target: RelayTarget
    let options: Options
    let recorder: ReportRecorder
    let tunnelClient: TunnelClient
    let closeLog = CloseLog()

    package init(target: RelayTarget, options: Options) {
        self.target = target
        self.options = options
        recorder = ReportRecorder(mode: "relay", subject: target.description)
        var configuration = TunnelClient.Configuration()
        configuration.additionalCAFile = options.caFile
        configuration.connectTimeout = options.stepTimeout
        configuration.handshakeTimeout = options.stepTimeout
        tunnelClient = TunnelClient(
            configuration: configuration,
            logger: Logger(label: "hybrid-conformance.relay") { _ in SwiftLogNoOpLogHandler() })
    }

    /// Runs every check and returns the report, in catalogue order.
    package func run() async -> ConformanceReport {
        await checkUpgrade()
        await checkPairing()
        await checkRefusals()
        await checkLowerCase()
        await checkBeforePairing()
        await checkForwardingAndClose()
        await checkMaxSize()
        await checkReverseClose()
        await checkDrop()
        if target.usesTLS {
            await checkOldTLS()
        } else {
            for check in RelayChecks.tls { recorder.skip(check, because: "the relay URL is not wss:// or https://") }
        }
        if options.slow {
            await checkTimeouts()
        } else {
            for check in RelayChecks.slow {
                recorder.skip(check, because: "waits out the relay's timeouts; run with --slow")
            }
        }
        recordClosePropagation()
        for check in RelayChecks.all where !recorder.hasResult(for: check.id) {
            recorder.skip(check, because: "not reached: an earlier step failed (see above)")
        }
        return ordered(recorder.snapshot)
    }

    /// The report with its results in ``RelayChecks/all`` order.
    private func ordered(_ report: ConformanceReport) -> ConformanceReport {
        let rank = Dictionary(uniqueKeysWithValues: RelayChecks.all.enumerated().map { ($1.id, $0) })
        var sorted = ConformanceReport(mode: report.mode, subject: report.subject)
        for result in report.results.enumerated().sorted(by: {
            (rank[$0.element.check.id] ?? .max, $0.offset) < (rank[$1.element.check.id] ?? .max, $1.offset)
        }) {
            sorted.record(result.element.check, result.element.outcome, observed: result.element.observed)
        }
        return sorted
    }

    func record(_ check: ConformanceCheck, _ verdict: RelayVerdict) {
        recorder.record(check, verdict.outcome, observed: verdict.observed)
    }

    /// Records `fail` with `error` for each check in `checks` that has no result yet.
    func fail(_ checks: [ConformanceCheck], _ error: any Error) {
        for check in checks where !recorder.hasResult(for: check.id) {
            recorder.record(check, .fail, observed: "\(error)")
        }
    }

    // MARK: Shared helpers

    static func randomTunnelID() -> TunnelID {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<TunnelID.byteCount).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return TunnelID(bytes: bytes)!
    }

    static func randomMessage(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    func url(_ path: TunnelPath) -> TunnelURL { TunnelURL(origin: target.origin, path: path) }

    func upgradeRequest(_ path: String, method: String = "GET", subprotocol: String? = TunnelWebSocket.subprotocol)
        -> RelayUpgradeRequest
    {
        var request = RelayUpgradeRequest(path: path, host: target.origin.authority)
        request.method = method
        request.subprotocol = subprotocol
        return request
    }

    /// TLS for raw connections (nil for ws://); `maximum` limits the versions offered.
    func rawTLS(maximum: TLSVersion? = nil) -> TLSConfiguration? {
        guard target.usesTLS else { return nil }
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile = options.caFile { tls.additionalTrustRoots = [.file(caFile)] }
        if let maximum {
            tls.minimumTLSVersion = .tlsv1
            tls.maximumTLSVersion = maximum
        }
        return tls
    }

    /// Sends one request on its own connection and reads the answer, then closes.
    func request(_ request: RelayUpgradeRequest) async -> RelayRequestOutcome {
        do {
            return try await RelayRawConnection.with(target, tls: rawTLS(), timeout: options.stepTimeout) {
                connection in
                try await exchange(request, on: connection)
            }
        } catch {
            return .failed("\(error)")
        }
    }

    /// Sends `request` on an open raw connection and reads the response head, within the step timeout.
    func exchange(_ request: RelayUpgradeRequest, on connection: RelayRawConnection) async throws -> RelayRequestOutcome
    {
        // A relay may answer (503, 429) and close at accept, before reading the request: then the
        // write fails but its answer is still there to read.
        try? await connection.send(request.text)
        let channel = connection.channel
        let (outcome, expired) = await withDeadline(
            after: options.stepTimeout, on: ContinuousClock(), onExpiry: { try? await channel.close() }
        ) {
            (try? await connection.readResponse()) ?? .closedWithoutResponse
        }
        return expired ? .failed("no answer within \(RelayJudge.seconds(options.stepTimeout))") : outcome
    }
}
