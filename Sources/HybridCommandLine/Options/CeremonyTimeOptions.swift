import ArgumentParser
import HybridClient

/// `--timeout` and `--linger`: how long a phone ceremony may take, and how long its tunnel stays
/// open after the answer (protocol.md §7.5), with their range checks (`hybrid-client`,
/// `hybrid-security-key`).
package struct CeremonyTimeOptions: ParsableArguments {
    @Option(
        help:
            "Seconds the whole ceremony may take. Default: the request's own timeout if it has one (WebAuthn options may), else 120."
    )
    package var timeout: Double?

    @Option(
        help: ArgumentHelp(
            "Seconds to keep the phone's tunnel open after the answer for a late update, "
                + "unless the phone closes first (0: close at once). The answer is never held back.",
            valueName: "seconds"))
    package var linger: Double = Double(HybridClientOptions.defaultLinger.components.seconds)

    package init() {}

    package func validate() throws {
        if let timeout, !(timeout > 0 && timeout <= 3600) {
            throw ValidationError("--timeout must be between 0 and 3600 seconds")
        }
        guard linger >= 0 && linger <= 3600 else {
            throw ValidationError("--linger must be between 0 and 3600 seconds")
        }
    }

    /// `--timeout`, else `requestTimeout` (the request's own), else ``HybridClientOptions/defaultTimeout``.
    package func timeoutDuration(requestTimeout: Duration? = nil) -> Duration {
        timeout.map { .milliseconds(Int64($0 * 1000)) } ?? requestTimeout ?? HybridClientOptions.defaultTimeout
    }

    /// `--linger`.
    package var lingerDuration: Duration { .milliseconds(Int64(linger * 1000)) }
}
