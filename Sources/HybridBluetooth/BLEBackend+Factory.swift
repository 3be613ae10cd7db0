import Logging

extension BLEBackend {
    /// The advertiser for this backend. Creating it does no I/O; errors surface when advertising starts.
    public func makeAdvertiser(logger: Logger) -> any BLEAdvertiser {
        switch self {
        case .hci(let adapter): HCIAdvertiser(adapter: adapter, logger: logger)
        case .bluez(let adapter): BlueZDBusAdvertiser(adapter: adapter, logger: logger)
        case .simulated(let air): SimulatedAirAdvertiser(air: air, logger: logger)
        }
    }

    /// The scanner for this backend. Creating it does no I/O; errors surface when scanning starts.
    public func makeScanner(logger: Logger) -> any BLEScanner {
        switch self {
        case .hci(let adapter): HCIScanner(adapter: adapter, logger: logger)
        case .bluez(let adapter): BlueZDBusScanner(adapter: adapter, logger: logger)
        case .simulated(let air): SimulatedAirScanner(air: air, logger: logger)
        }
    }

    /// The default backend: ``bluez(adapter:)`` when ``BluetoothdProbe/isReachable()``, else
    /// ``hci(adapter:)``.
    public static func automatic(adapter: String?) async -> BLEBackend {
        automatic(adapter: adapter, bluetoothdReachable: await BluetoothdProbe.isReachable())
    }
}
