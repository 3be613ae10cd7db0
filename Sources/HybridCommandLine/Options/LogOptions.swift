import ArgumentParser
import Logging

/// `--log-level` and `--verbose`: what a program logs on standard error, the same two options in
/// every program that serves a ceremony (`hybrid-client`, `hybrid-security-key`,
/// `hybrid-authenticator`, `hybrid-conformance phone`). Logs never carry secrets or payloads.
package struct LogOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Log level on standard error: trace, debug, info, notice, warning, error or critical. Default: warning.",
            valueName: "level"))
    package var logLevel: String?

    @Flag(help: "Log debug details on standard error (never secrets): the same as --log-level debug.")
    package var verbose = false

    package init() {}

    package func validate() throws {
        guard let logLevel else { return }
        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError(
                "unknown --log-level \(logLevel): use trace, debug, info, notice, warning, error or critical")
        }
        if verbose && level != .debug {
            throw ValidationError(
                "--verbose means --log-level debug: give one of them, not --log-level \(logLevel) too")
        }
    }

    /// The level asked for: debug with `--verbose`, else `--log-level`, else warning.
    package var level: Logger.Level {
        verbose ? .debug : logLevel.flatMap(Logger.Level.init(rawValue:)) ?? .warning
    }

    /// A logger with ``level`` that writes to standard error, whatever the process bootstrapped:
    /// standard output may carry a protocol (native messaging, `--json`).
    package func logger(label: String) -> Logger {
        var logger = Logger(label: label) { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = level
        return logger
    }

    /// Makes every logger of the process write to standard error at ``level`` (once, before the first
    /// logger is made).
    package func bootstrapStandardError() {
        let level = self.level
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
