import Foundation
import HybridConformance
import HybridConformanceLive
import HybridCore
import Logging
import TestLoopbackRelay
import TunnelRelay

/// Our own relay (TunnelRelay's server) on 127.0.0.1, started in this process for one test.
enum InProcessRelay {
    static let logger = Logger(label: "conformance.relay.test") { _ in SwiftLogNoOpLogHandler() }

    /// TunnelRelayTests' test certificate for localhost / 127.0.0.1 and its key (``LoopbackRelay``).
    static let certificate = LoopbackRelay.certificate
    static let key = LoopbackRelay.key

    /// Runs `body` with a started relay and its port; stops the relay afterwards.
    static func with<Result: Sendable>(
        tls: Bool = false,
        _ configure: (inout RelayConfiguration) -> Void = { _ in },
        _ body: (_ port: Int) async throws -> Result
    ) async throws -> Result {
        var configuration = RelayConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.connectionsPerSecondPerIP = 0
        // The default 10 s from accept to upgrade is a slowloris guard; on a loaded 2-core CI
        // machine an in-process relay can take longer than that to read a request.
        configuration.handshakeTimeout = .seconds(60)
        if tls { configuration.tls = .init(certificateChain: certificate, privateKey: key) }
        configure(&configuration)
        let relay = try await buildRelay(configuration: configuration, logger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await relay.run() }
            defer { group.cancelAll() }
            return try await body(relay.port)
        }
    }

    /// Runs the relay checks against `url` (step timeout 30 s unless `configure` changes it).
    static func check(_ url: String, _ configure: (inout RelayConformanceRun.Options) -> Void = { _ in }) async throws
        -> ConformanceReport
    {
        var options = RelayConformanceRun.Options()
        // Generous for a loaded CI machine: a conforming relay never comes near it; only the
        // faults that withhold an answer wait it out.
        options.stepTimeout = .seconds(30)
        configure(&options)
        return await RelayConformanceRun(target: try RelayTarget(parsing: url), options: options).run()
    }
}
