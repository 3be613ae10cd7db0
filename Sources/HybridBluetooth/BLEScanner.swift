/// Something that reports service-data adverts seen on the air.
///
/// Implementations: ``HCIScanner`` (raw HCI), ``BlueZDBusScanner`` (bluetoothd over D-Bus) and
/// ``SimulatedAirScanner``. Pick one with ``BLEBackend/makeScanner(logger:)``.
///
/// ```swift
/// for try await advert in try await scanner.scan() {   // 0xFFF9 and 0xFDE2
///     if let match = try? keys.trialDecrypt(advert.serviceData) { ... }
/// }
/// ```
public protocol BLEScanner: Sendable {
    /// Starts scanning, and returns once scanning is on.
    ///
    /// The stream yields one element per received advert whose Service Data (AD type 0x16) has a UUID
    /// in `uuids`; duplicates are **not** filtered (every received advert is delivered). An advert
    /// carrying service data for two requested UUIDs yields two elements. The stream ends with an error
    /// if the adapter fails; scanning stops when the stream is terminated (the consumer stops iterating,
    /// or its task is cancelled).
    /// - Throws: ``BluetoothError`` if scanning cannot start.
    func scan(for uuids: Set<UInt16>) async throws -> AsyncThrowingStream<BLEAdvertisement, any Error>

    /// Ends every scan of this scanner and returns once each has finished: scanning is off and its
    /// socket, descriptors and thread are gone. A scan stops by itself when its stream is dropped,
    /// but in the background; a caller that must know (a daemon that reports when it is at rest)
    /// calls this after dropping the stream.
    func stopScanning() async
}

extension BLEScanner {
    /// A scanner without background work: nothing to wait for.
    public func stopScanning() async {}

    /// Scans for the caBLE service UUIDs, 0xFFF9 and 0xFDE2 (protocol.md §3.3: a client must accept both).
    public func scan() async throws -> AsyncThrowingStream<BLEAdvertisement, any Error> {
        try await scan(for: BLEServiceUUID.cable)
    }
}

/// One received advert: the Service Data for one 16-bit UUID, and where it came from.
public struct BLEAdvertisement: Sendable, Hashable, CustomStringConvertible {
    /// The advertiser's device address (public or random; on the simulated air a made-up one).
    public var address: BLEAddress
    /// Whether ``address`` is public or random, when the backend reports it (``HCIScanner`` does;
    /// the bluetoothd and simulated-air scanners give `nil`).
    public var addressType: BLEAddressType?
    /// The 16-bit service UUID the data was sent under.
    public var uuid16: UInt16
    /// The service data after the UUID (for caBLE: 20 bytes, or more with a CTAP 2.3 suffix).
    public var serviceData: [UInt8]
    /// Received signal strength in dBm, or `nil` when the controller does not report one.
    public var rssi: Int8?

    /// An advertisement from its fields.
    public init(
        address: BLEAddress,
        addressType: BLEAddressType? = nil,
        uuid16: UInt16,
        serviceData: [UInt8],
        rssi: Int8?
    ) {
        self.address = address
        self.addressType = addressType
        self.uuid16 = uuid16
        self.serviceData = serviceData
        self.rssi = rssi
    }

    /// Address, UUID, length and RSSI, but never the data (adverts must not end up in logs).
    public var description: String {
        let strength = rssi.map { "\($0) dBm" } ?? "n/a"
        return
            "advert from \(address) uuid 0x\(String(uuid16, radix: 16)) (\(serviceData.count) bytes, rssi \(strength))"
    }
}

/// The kind of a device address (Core spec Vol 6 Part B §1.3).
public enum BLEAddressType: Sendable, Hashable {
    /// An IEEE-assigned public address, fixed for the controller.
    case `public`
    /// A random address: static, or private (resolvable or non-resolvable, e.g. a caBLE advert's).
    case random

    /// From an advertising report's Address_Type (Core spec Vol 4 Part E §7.7.65.2): 0x00/0x02
    /// public (0x02: resolved identity), 0x01/0x03 random; `nil` for anything else (0xFF anonymous).
    init?(reportAddressType: UInt8) {
        switch reportAddressType {
        case 0x00, 0x02: self = .public
        case 0x01, 0x03: self = .random
        default: return nil
        }
    }
}

/// The 16-bit service UUIDs that carry caBLE adverts (protocol.md §3.3).
public enum BLEServiceUUID {
    /// 0xFFF9, FIDO Alliance: what current authenticators send and what we advertise.
    public static let fido: UInt16 = 0xFFF9
    /// 0xFDE2, Google: older Chrome-Android and iOS 16 adverts.
    public static let googleCable: UInt16 = 0xFDE2
    /// Both, as a client must scan for them.
    public static let cable: Set<UInt16> = [fido, googleCable]
}
