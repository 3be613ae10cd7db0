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

    @Option(
        help:
            "Bluetooth backend: hci (raw HCI, root), bluez (bluetoothd), or sim (simulated air, for tests). Default: bluez if bluetoothd runs, else hci."
    )
    var ble: String?

    @Option(help: "Bluetooth adapter, e.g. hci0. Default: the first one.")
    var adapter: String?

    @Flag(help: "Progress as JSON lines on stderr (the first is {\"event\": \"qr\", \"url\": …}).")
    var json = false

    @Option(
        help:
            "Also write the QR code to this new file (.svg for SVG, else PNG), mode 0600; it is deleted when the ceremony ends."
    )
    var qrFile: String?

    @Flag(
        name: .customLong("print-qr-url"),
        help:
            "Print the QR code and its FIDO:/ URL on stderr even when stderr is not a terminal (it is a secret: keep it out of logs)."
    )
    var printQRURL = false

    @Flag(
        inversion: .prefixedNo,
        help: "Show the QR code in a window (with a Cancel button) when DISPLAY or WAYLAND_DISPLAY is set.")
    var window = false

    @Option(help: "Seconds to wait for the whole ceremony. Default: the options' timeout, else 120.")
    var timeout: Double?

    @Option(
        help: ArgumentHelp(
            "Seconds to keep the tunnel open after the answer for a late update from the phone, "
                + "unless it closes first (0: close at once).",
            valueName: "seconds"))
    var linger: Double = Double(HybridClientOptions.defaultLinger.components.seconds)

    @Option(
        name: .customLong("tunnel-server"),
        help: ArgumentHelp(
            "Use your own relay for a tunnel domain: connect to URL (e.g. wss://relay.example.com) when the phone "
                + "names tunnel domain ID (0 Google, 1 Apple, 256-65535 hashed). Repeatable.",
            valueName: "ID=URL"))
    var tunnelServers: [String] = []

    @Option(
        help: ArgumentHelp(
            "Data channel: auto (the phone's BLE L2CAP channel when it offers one and the adapter can, else the tunnel), "
                + "tunnel, or l2cap (CTAP 2.3; no tunnel fallback).",
            valueName: "auto|tunnel|l2cap"))
    var channel: String = DataChannelMode.auto.rawValue

    @Option(
        name: .customLong("l2cap-timeout"),
        help: ArgumentHelp("Seconds an L2CAP attempt may take before the tunnel is used instead.", valueName: "seconds")
    )
    var l2capTimeout: Double = Double(HybridClientOptions.defaultL2CAPTimeout.components.seconds)

    @Option(help: "PEM file of extra CA certificates to trust for wss:// tunnel servers.")
    var caFile: String?

    @Flag(help: "Log debug details to stderr (never secrets).")
    var verbose = false

    func validate() throws {
        _ = try webOrigin()
        _ = try tunnelServerMap()
        if let ble {
            do { _ = try BLEBackend(argument: ble, adapter: adapter) } catch {
                throw ValidationError(error.description)
            }
        }
        if let timeout, !(timeout > 0 && timeout <= 3600) {
            throw ValidationError("--timeout must be between 0 and 3600 seconds")
        }
        guard DataChannelMode(rawValue: channel) != nil else {
            throw ValidationError("--channel must be auto, tunnel or l2cap, not \"\(channel)\"")
        }
        guard l2capTimeout > 0 && l2capTimeout <= 600 else {
            throw ValidationError("--l2cap-timeout must be between 0 and 600 seconds")
        }
        guard linger >= 0 && linger <= 3600 else {
            throw ValidationError("--linger must be between 0 and 3600 seconds")
        }
    }

    func webOrigin() throws -> WebOrigin {
        do {
            return try WebOrigin(origin)
        } catch {
            throw ValidationError("--origin \(origin): \(error)")
        }
    }

    /// The `--tunnel-server ID=URL` mappings.
    func tunnelServerMap() throws -> [TunnelDomainID: TunnelServerOrigin] {
        var map: [TunnelDomainID: TunnelServerOrigin] = [:]
        for text in tunnelServers {
            guard let (domain, origin) = TunnelOverrideArgument.parse(text) else {
                throw ValidationError(
                    "--tunnel-server \(text): expected ID=URL with ID 0, 1 or 256-65535 and URL ws://host[:port] or wss://host[:port]"
                )
            }
            map[domain] = origin
        }
        return map
    }

    /// The runner options: the timeout from `--timeout`, else `optionsTimeout` (milliseconds, from
    /// the WebAuthn options), else the default.
    func runnerOptions(optionsTimeout: UInt32?) async throws -> HybridClientOptions {
        let backend: BLEBackend
        if let ble, let named = try? BLEBackend(argument: ble, adapter: adapter) {
            backend = named
        } else {
            backend = await BLEBackend.automatic(adapter: adapter)
        }
        let timeout: Duration =
            if let timeout { .milliseconds(Int64(timeout * 1000)) } else if let optionsTimeout {
                .milliseconds(Int64(optionsTimeout))
            } else { HybridClientOptions.defaultTimeout }
        var options = HybridClientOptions(
            bluetooth: backend,
            timeout: timeout,
            linger: .milliseconds(Int64(linger * 1000)),
            additionalCAFile: caFile,
            tunnelServers: try tunnelServerMap()
        )
        options.channel = DataChannelMode(rawValue: channel) ?? .auto
        options.l2capTimeout = .milliseconds(Int64(l2capTimeout * 1000))
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
        let limit = timeout.map { Duration.milliseconds(Int64($0 * 1000)) } ?? HybridClientOptions.defaultTimeout
        let ceremony: Ceremony
        do {
            ceremony = try await OptionsDeadline.run(within: limit, parse)
        } catch let error as OptionsDeadline.TimedOut {
            ProgressReporter(json: json, timeout: limit).reportFailure(error.description, kind: "timeout")
            throw ExitCode(ExitStatus.timedOut)
        }
        let (hybridRequest, optionsTimeout) = request(ceremony)
        var options = try await runnerOptions(optionsTimeout: optionsTimeout)
        if timeout != nil {
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
