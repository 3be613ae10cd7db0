import Testing

@testable import HybridBluetooth

/// Fixtures from Core spec Vol 4 Part E §7.7.14 (Command Complete) and §7.7.15 (Command Status).
@Suite struct HCIEventTests {
    @Test func commandComplete() throws {
        #expect(
            try HCIEvent(packet: Fixture.bytes("04 0e 04 01 0a20 00"))
                == .commandComplete(opcode: 0x200A, returnParameters: [0x00])
        )
        #expect(
            try HCIEvent(packet: Fixture.bytes("04 0e 05 01 3620 00 07"))
                == .commandComplete(opcode: 0x2036, returnParameters: [0x00, 0x07])
        )
    }

    @Test func commandStatus() throws {
        #expect(
            try HCIEvent(packet: Fixture.bytes("04 0f 04 0c 01 0c20")) == .commandStatus(opcode: 0x200C, status: 0x0C)
        )
    }

    @Test func otherEventsAreKeptApart() throws {
        #expect(try HCIEvent(packet: Fixture.bytes("04 10 01 00")) == .other(code: 0x10))
        #expect(try HCIEvent(packet: Fixture.bytes("04 3e 02 02 00")) == .leMeta(subevent: 0x02, parameters: [0x00]))
    }

    @Test func lengthMismatchesAreTypedErrors() {
        #expect(throws: BluetoothError.malformedReport(.truncated)) {
            try HCIEvent(packet: Fixture.bytes("04 0e 04 01 0a20"))
        }
        #expect(throws: BluetoothError.malformedReport(.trailingBytes)) {
            try HCIEvent(packet: Fixture.bytes("04 0e 03 01 0a20 00"))
        }
        #expect(throws: BluetoothError.malformedReport(.truncated)) {
            try HCIEvent(packet: Fixture.bytes("04 0f 03 00 01 0c"))
        }
        #expect(throws: BluetoothError.malformedReport(.truncated)) { try HCIEvent(packet: Fixture.bytes("04 3e 00")) }
        #expect(throws: BluetoothError.malformedReport(.truncated)) { try HCIEvent(packet: Fixture.bytes("02 0e")) }
    }
}
