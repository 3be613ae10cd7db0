import Foundation
import HybridCore
import HybridDBus
import Logging

extension BLEBackend {
    /// What this backend's adapter can do for the CTAP 2.3 L2CAP channel (protocol.md §3.4), read
    /// from the controller: LE connections (LE Create Connection or LE Extended Create Connection,
    /// and the kernel's LE setting on) and extended advert reception (LE feature bit 12 and the
    /// extended scan commands).
    ///
    /// bluetoothd's D-Bus API does not say whether it scans extended adverts, so the `.bluez`
    /// backend asks the controller too, through a raw HCI socket (read-only commands; it needs
    /// CAP_NET_RAW). The simulated air has no L2CAP, and an adapter that cannot be asked reports
    /// nothing: the QR code then leaves key 6 out.
    package func l2capCapabilities() async -> BluetoothCapabilities {
        @Sendable func none(_ error: BluetoothError) -> BluetoothCapabilities {
            BluetoothCapabilities(
                leConnections: false, extendedAdvertisingReception: false, readFailure: error.description)
        }
        if case .simulated = self { return .notApplicable }
        let name: String?
        do { name = try kernelAdapterName() } catch { return none(error) }
        return await BlockingCall.perform(name: "hci-caps") {
            do throws(BluetoothError) {
                let adapter = try Self.resolve(name)
                var capabilities = try Self.controllerCapabilities(of: adapter).l2capCapabilities
                // The kernel refuses LE connections while the adapter's LE setting is off, whatever
                // the controller supports. When the setting cannot be read, the controller decides.
                if let settings = try? adapter.kernelSettings(), !settings.contains(.lowEnergy) {
                    capabilities.leConnections = false
                }
                return capabilities
            } catch {
                return none(error)
            }
        }
    }

    /// Opens an LE L2CAP channel from this backend's adapter to `advert`'s sender on `psm`, giving
    /// up after `timeout` (protocol.md §10.9: the kernel scans for the peer's connectable advert,
    /// connects, then opens the channel). The kernel does the work, so `.hci` and `.bluez` both
    /// can; the simulated air cannot.
    ///
    /// - Throws: ``BluetoothError``.
    package func connectL2CAP(to advert: BLEAdvertisement, psm: UInt16, timeout: Duration) async throws
        -> L2CAPChannel
    {
        let name = try kernelAdapterName()
        let result: Result<L2CAPChannel, BluetoothError> = await BlockingCall.perform(name: "l2cap-connect") {
            Result { () throws(BluetoothError) -> L2CAPChannel in
                let adapter = try Self.resolve(name)
                guard let local = HCIAdapter.address(of: adapter.name) else { throw .noAdapter(adapter.name) }
                return try L2CAPChannel.connect(
                    from: local, to: advert.address, peerType: advert.addressType ?? .random, psm: psm,
                    timeout: timeout, adapterID: adapter.id)
            }
        }
        return try result.get()
    }

    /// Listens on a dynamic LE PSM of this backend's adapter, for a phone that offers the CTAP 2.3
    /// L2CAP channel (protocol.md §3.4): the advert then carries the PSM and must be connectable.
    ///
    /// The adapter needs extended advertising (read from the controller, as for
    /// ``l2capCapabilities()``): the raw HCI advert is an extended connectable one (§10.9), and
    /// bluetoothd's is a "peripheral" advertisement it places itself. The simulated air has no L2CAP.
    ///
    /// - Throws: ``BluetoothError/unavailable(reason:)`` when this backend or adapter cannot, or the
    ///   socket's ``BluetoothError``.
    package func listenL2CAP() async throws -> L2CAPChannel.Listener {
        let name = try kernelAdapterName()
        let result: Result<L2CAPChannel.Listener, BluetoothError> = await BlockingCall.perform(name: "l2cap-listen") {
            Result { () throws(BluetoothError) -> L2CAPChannel.Listener in
                let adapter = try Self.resolve(name)
                guard try Self.controllerCapabilities(of: adapter).extendedAdvertising else {
                    throw .unavailable(reason: "\(adapter.name) has no extended advertising")
                }
                guard let local = HCIAdapter.address(of: adapter.name) else { throw .noAdapter(adapter.name) }
                return try L2CAPChannel.Listener(adapter: local)
            }
        }
        return try result.get()
    }

    /// The adapter (`hciN`, or `nil` for the first) of a backend the kernel drives; the simulated
    /// air has no L2CAP channels.
    private func kernelAdapterName() throws(BluetoothError) -> String? {
        switch self {
        case .hci(let adapter), .bluez(let adapter): adapter
        case .simulated: throw .unavailable(reason: "the simulated air has no L2CAP channels")
        }
    }

    /// `name`'s adapter, every failure as a ``BluetoothError``. Blocking.
    private static func resolve(_ name: String?) throws(BluetoothError) -> HCIAdapter {
        do { return try HCIAdapter.resolve(name) } catch let error as BluetoothError { throw error } catch {
            throw .unavailable(reason: "\(error)")
        }
    }

    /// What `adapter`'s controller reports, through read-only HCI commands. Blocking.
    private static func controllerCapabilities(of adapter: HCIAdapter) throws(BluetoothError)
        -> HCIControllerCapabilities
    {
        let logger = Logger(label: "hci-capabilities", factory: { _ in SwiftLogNoOpLogHandler() })
        do { return try HCIConnection(adapter: adapter, logger: logger).readCapabilities() } catch let error
            as BluetoothError
        { throw error } catch { throw .unavailable(reason: "\(error)") }
    }
}

extension HCIControllerCapabilities {
    /// LE Create Connection (26.4) or LE Extended Create Connection (37.7); LE feature bit 12 with
    /// the extended scan commands (Core spec Vol 4 Part E §6.27, Vol 6 Part B §4.6).
    var l2capCapabilities: BluetoothCapabilities {
        BluetoothCapabilities(
            leConnections: supports(octet: 26, bit: 4) || supports(octet: 37, bit: 7),
            extendedAdvertisingReception: leFeatures & (1 << 12) != 0 && extendedScanning)
    }
}
