#if canImport(Glibc)
    import Glibc
#endif

extension BluetoothError {
    /// Maps an `errno` from a Bluetooth socket, ioctl or HCI write onto a case the user can act on.
    /// - Parameters:
    ///   - code: the `errno` value.
    ///   - operation: what was attempted, for the fallback case (e.g. `"bind hci0"`).
    ///   - adapter: the adapter concerned, if known (e.g. `"hci0"`).
    public static func fromErrno(_ code: Int32, operation: String, adapter: String?) -> BluetoothError {
        switch code {
        case EAFNOSUPPORT, EPROTONOSUPPORT:
            return .unavailable(
                reason: "the kernel has no Bluetooth support (socket(AF_BLUETOOTH) failed); "
                    + "load the bluetooth module or use a kernel with CONFIG_BT"
            )
        case EPERM, EACCES:
            return .permissionDenied
        case ENODEV:
            return .noAdapter(adapter)
        case ENETDOWN:
            return .adapterDown(adapter ?? "adapter")
        case EBUSY, EALREADY:
            return .adapterBusy(adapter ?? "adapter")
        case ERFKILL:
            return .unavailable(reason: "\(adapter ?? "the adapter") is blocked by rfkill (`rfkill unblock bluetooth`)")
        default:
            return .systemCallFailed(operation: operation, errno: code)
        }
    }
}
