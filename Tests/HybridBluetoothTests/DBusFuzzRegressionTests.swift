import CDBus
@_spi(Fuzzing) import HybridFuzzOracles
import TestSupport
import Testing

@testable import HybridBluetooth
@testable import HybridDBus

/// Inputs that once made a fuzz target stop (scripts/fuzz.sh), kept with what they must give.
@Suite struct DBusFuzzRegressionTests {
    /// A reply with signature `budt` whose double is a NaN (bits ffff000000000000): the fuzz oracle
    /// compared with ==, and NaN is not equal to itself. The values are read as the wire says
    /// (little-endian, D-Bus specification "Marshaling"), and the NaN's bits survive re-encoding.
    static let nanReply = Fixture.bytes(
        "6c020101180000000700000012000000050175000700000008016700046275647400000000000000"
            + "010000002a000000000000000000fffffffff83f0000000000010000")

    static func demarshal(_ bytes: [UInt8]) throws -> DBusMessage {
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let raw = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                dbus_message_demarshal($0.baseAddress, Int32(buffer.count), &error)
            }
        }
        return DBusMessage(owning: try #require(raw))
    }

    @Test func nanDoubleIsReadAndRewrittenBitForBit() throws {
        let arguments = try Self.demarshal(Self.nanReply).arguments()
        try #require(arguments.count == 4)
        #expect(arguments[0] == .boolean(true))
        #expect(arguments[1] == .uint32(42))
        #expect(arguments[3] == .uint64(0x3FF8_FFFF))
        guard case .double(let value) = arguments[2] else { throw TestFailure("not a double: \(arguments[2])") }
        #expect(value.bitPattern == 0xFFFF_0000_0000_0000)
        let copy = try DBusMessage.methodCall(
            destination: "org.example", path: "/", interface: "org.example", member: "M", arguments: arguments)
        guard case .double(let again)? = try copy.arguments().dropFirst(2).first else { throw TestFailure("no double") }
        #expect(again.bitPattern == 0xFFFF_0000_0000_0000)
        BluetoothFuzzEntryPoints.dbusMessage(Self.nanReply)  // traps if the oracle fails
    }
}
