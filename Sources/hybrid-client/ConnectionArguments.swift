import ArgumentParser
import Foundation
import HybridBluetooth
import HybridClient
import HybridCommandLine
import HybridCore

/// The flags `create` and `get` share: origin, Bluetooth, output, timeout, test overrides.
struct ConnectionArguments: ParsableArguments {
    @Option(help: "The web origin the request comes from, e.g. https://example.com.")
    var origin: String

    @OptionGroup var bluetooth: BluetoothOptions

    @Flag(help: "Progress as JSON lines on stderr (the first is {\"event\": \"qr\", \"url\": …}).")
    var json = false

    @OptionGroup var qr: QROutputOptions

    @Flag(
        inversion: .prefixedNo,
        help: "Show the QR code in a window (with a Cancel button) when DISPLAY or WAYLAND_DISPLAY is set.")
    var window = false

    @OptionGroup var times: CeremonyTimeOptions

    @OptionGroup var tunnel: TunnelServerOptions

    @OptionGroup var dataChannel: DataChannelOptions

    @OptionGroup var log: LogOptions

    func validate() throws {
        _ = try webOrigin()
    }

    func webOrigin() throws -> WebOrigin {
        do {
            return try WebOrigin(origin)
        } catch {
            throw ValidationError("--origin \(origin): \(error)")
        }
    }

    /// The runner options: the timeout from `--timeout`, else `optionsTimeout` (milliseconds, from
    /// the WebAuthn options), else the default.
    func runnerOptions(optionsTimeout: UInt32?) async throws -> HybridClientOptions {
        var options = HybridClientOptions(
            bluetooth: await bluetooth.backend(),
            timeout: times.timeoutDuration(requestTimeout: optionsTimeout.map { .milliseconds(Int64($0)) }),
            linger: times.lingerDuration,
            additionalCAFile: tunnel.caFile,
            tunnelServers: try tunnel.tunnelServerMap()
        )
        dataChannel.apply(to: &options)
        return options
    }
}

extension ConnectionArguments {
    /// Parses the ceremony with `parse` and runs it, all within `--timeout` (else parsing gets the
    /// default timeout, and the ceremony the options' own): the ceremony gets what parsing left.
    func runWithinTimeout<Ceremony: Sendable>(
        parsing parse: @escaping () throws -> Ceremony,
        request: (Ceremony) -> (HybridClientRequest, optionsTimeout: UInt32?)
    ) async throws {
        let started = ContinuousClock.now
        let limit = times.timeoutDuration()
        let ceremony: Ceremony
        do {
            ceremony = try await OptionsDeadline.run(within: limit, parse)
        } catch let error as OptionsDeadline.TimedOut {
            ProgressReporter(json: json, timeout: limit).reportFailure(error.description, kind: "timeout")
            throw ExitCode(ExitStatus.timedOut)
        }
        let (hybridRequest, optionsTimeout) = request(ceremony)
        var options = try await runnerOptions(optionsTimeout: optionsTimeout)
        if times.timeout != nil {
            options.timeout = max(limit - (ContinuousClock.now - started), .milliseconds(1))
        }
        try await CeremonyExecution(arguments: self, options: options).run(hybridRequest)
    }
}

/// Reads `--options FILE|-` (or the file of another `argument`, named in the error).
func readOptionsFile(_ path: String, argument: String = "--options") throws -> Data {
    do {
        if path == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        return try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
        throw ValidationError("\(argument) \(path): \(error.localizedDescription)")
    }
}

/// Decodes a base64url flag value.
func base64URLArgument(_ text: String, flag: String) throws -> [UInt8] {
    guard let bytes = Base64URL.decode(text) else { throw ValidationError("\(flag) must be base64url (no padding)") }
    return bytes
}

/// `count` random bytes from the system generator.
func randomBytes(_ count: Int) -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
}

/// `--challenge B64URL`, or 32 random bytes when the flag is absent.
func challengeArgument(_ text: String?) throws -> [UInt8] {
    try text.map { try base64URLArgument($0, flag: "--challenge") } ?? randomBytes(32)
}

/// Runs `body`; any error it throws is a usage error (bad options or origin), reported as one.
func usageErrors<Result>(_ body: () throws -> Result) throws -> Result {
    do {
        return try body()
    } catch let error as ValidationError {
        throw error
    } catch {
        throw ValidationError("\(error)")
    }
}
