import Testing

@testable import HybridBluetooth

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct BluetoothErrorTests {
    @Test func errnoMapsToActionableCases() {
        #expect(BluetoothError.fromErrno(EAFNOSUPPORT, operation: "socket", adapter: nil).isUnavailable)
        #expect(BluetoothError.fromErrno(EPERM, operation: "write", adapter: "hci0") == .permissionDenied)
        #expect(BluetoothError.fromErrno(EACCES, operation: "write", adapter: "hci0") == .permissionDenied)
        #expect(BluetoothError.fromErrno(ENODEV, operation: "bind", adapter: "hci3") == .noAdapter("hci3"))
        #expect(BluetoothError.fromErrno(ENETDOWN, operation: "write", adapter: "hci0") == .adapterDown("hci0"))
        #expect(BluetoothError.fromErrno(EBUSY, operation: "bind", adapter: "hci0") == .adapterBusy("hci0"))
        #expect(
            BluetoothError.fromErrno(EIO, operation: "read", adapter: "hci0")
                == .systemCallFailed(operation: "read", errno: EIO)
        )
    }

    @Test func descriptionsNameTheFix() {
        #expect(BluetoothError.permissionDenied.description.contains("CAP_NET_RAW"))
        #expect(BluetoothError.adapterDown("hci1").description.contains("hci1"))
        #expect(
            BluetoothError.commandFailed(opcode: 0x200A, hciStatus: 0x0C).description
                == "controller rejected HCI command 0x200a with status 0x0c (Command Disallowed)"
        )
    }
}

extension BluetoothError {
    var isUnavailable: Bool {
        if case .unavailable = self { return true }
        return false
    }
}
