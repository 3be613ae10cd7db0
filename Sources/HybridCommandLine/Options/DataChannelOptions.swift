import ArgumentParser
import HybridClient

/// `--channel` and `--l2cap-timeout`: which data channel a client's sessions may use (protocol.md
/// §3.4; PXP's data transfer channels), for every program that acts as the client (`hybrid-client`,
/// `hybrid-conformance client`).
package struct DataChannelOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Data channel: auto (the phone's BLE L2CAP channel when it offers one and the adapter can, else the tunnel), "
                + "tunnel, or l2cap (CTAP 2.3; no tunnel fallback).",
            valueName: "auto|tunnel|l2cap"))
    package var channel: String = DataChannelMode.auto.rawValue

    @Option(
        name: .customLong("l2cap-timeout"),
        help: ArgumentHelp("Seconds an L2CAP attempt may take before the tunnel is used instead.", valueName: "seconds")
    )
    package var l2capTimeout: Double = Double(HybridClientOptions.defaultL2CAPTimeout.components.seconds)

    package init() {}

    package func validate() throws {
        guard DataChannelMode(rawValue: channel) != nil else {
            throw ValidationError("--channel must be auto, tunnel or l2cap, not \"\(channel)\"")
        }
        guard l2capTimeout > 0 && l2capTimeout <= 600 else {
            throw ValidationError("--l2cap-timeout must be between 0 and 600 seconds")
        }
    }

    /// Sets `options`' channel mode and L2CAP attempt limit from these flags.
    package func apply(to options: inout HybridClientOptions) {
        options.channel = DataChannelMode(rawValue: channel) ?? .auto
        options.l2capTimeout = .milliseconds(Int64(l2capTimeout * 1000))
    }
}
