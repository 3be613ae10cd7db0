import CDBus
import HybridBluetooth
import HybridDBus

/// HybridBluetooth's parsers as the fuzz targets (Fuzz/Package.swift) reach them, without making
/// the parsers themselves public. Each returns normally for input it accepts or rejects, and traps
/// only if an oracle fails (a parsed value that does not survive its own encoding).
@_spi(Fuzzing) public enum BluetoothFuzzEntryPoints {
    /// One packet from an HCI socket: the event, and for an LE Meta event its advertising reports and
    /// the FIDO adverts in them.
    public static func hciEvent(_ packet: [UInt8]) {
        guard case .leMeta(let subevent, let parameters)? = try? HCIEvent(packet: packet) else { return }
        guard let reports = try? LEAdvertisingReport.parse(subevent: subevent, parameters: parameters) else { return }
        for report in reports {
            _ = try? report.adverts(for: [BLEServiceUUID.fido, 0xFDE2, 0x180F])
            _ = try? AdvertisingData.serviceData16(in: report.data)
        }
    }

    /// A marshalled D-Bus message (as libdbus receives it from the bus): its arguments as this module
    /// reads them; what it reads must write into a new message and read back the same (NaN payloads
    /// included).
    public static func dbusMessage(_ bytes: [UInt8]) {
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let raw = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                dbus_message_demarshal($0.baseAddress, Int32(buffer.count), &error)
            }
        }
        guard let raw else { return }
        let message = DBusMessage(owning: raw)
        guard let arguments = try? message.arguments() else { return }
        guard
            let copy = try? DBusMessage.methodCall(
                destination: "org.example", path: "/", interface: "org.example", member: "M", arguments: arguments)
        else { return }
        // Compared as text, not with ==: a double may be a NaN (its payload prints), never equal to itself.
        guard let again = try? copy.arguments(), String(reflecting: again) == String(reflecting: arguments) else {
            fatalError("D-Bus arguments do not survive their own encoding")
        }
    }
}
