import CBlueZ

#if canImport(Glibc)
    import Glibc
#endif

/// A local controller, `hciN`.
struct HCIAdapter: Sendable, Equatable {
    let id: Int32
    let name: String

    /// Whether this kernel offers AF_BLUETOOTH at all (false on kernels built without Bluetooth).
    static var kernelHasBluetooth: Bool {
        CBlueZ_probeKernel() == 0
    }

    /// Ids of every adapter the kernel knows, up or down (empty without AF_BLUETOOTH).
    static func allIDs() -> [Int32] {
        var ids = [Int32](repeating: -1, count: 16)
        let count = CBlueZ_listDevices(&ids, Int32(ids.count))
        guard count > 0 else { return [] }
        return Array(ids.prefix(Int(min(count, Int32(ids.count)))))
    }

    /// Finds `name` (`hciN`), or the first adapter that is up. Blocking (ioctls): call it on a
    /// ``BlockingActivity`` thread.
    /// - Throws: ``BluetoothError/unavailable(reason:)`` without kernel support,
    ///   ``BluetoothError/noAdapter(_:)``, ``BluetoothError/adapterDown(_:)``.
    static func resolve(_ name: String?) throws -> HCIAdapter {
        guard CBlueZ_probeKernel() == 0 else {
            throw BluetoothError.fromErrno(errno, operation: "socket(AF_BLUETOOTH)", adapter: name)
        }
        if let name {
            let id = CBlueZ_deviceID(name)
            guard id >= 0 else { throw BluetoothError.fromErrno(errno, operation: "find \(name)", adapter: name) }
            return HCIAdapter(id: id, name: name)
        }
        let id = CBlueZ_firstUpDevice()
        if id >= 0 { return HCIAdapter(id: id, name: "hci\(id)") }
        guard let first = allIDs().first else { throw BluetoothError.noAdapter(nil) }
        throw BluetoothError.adapterDown("hci\(first)")
    }
}

extension HCIAdapter {
    /// The public address of `hciN` (up or down), or `nil` if there is no such adapter. Blocking (ioctl).
    static func address(of name: String) -> BLEAddress? {
        guard name.hasPrefix("hci"), let id = Int32(name.dropFirst(3)) else { return nil }
        var info = CBlueZ_DeviceInfo()
        guard CBlueZ_deviceInfo(id, &info) == 0 else { return nil }
        let bytes = withUnsafeBytes(of: info.address) { Array($0) }
        return BLEAddress(littleEndian: bytes)
    }
}
