import Testing

@testable import HybridUHID

/// The uhid side's byte handling: the FIDO report descriptor (CTAP 2.2 §11.2.8.1) and the
/// report-ID byte hidraw writes put in front of each output report.
@Suite struct UHIDReportTests {
    @Test func descriptorDeclaresTheFIDOUsagePageAnd64ByteReports() {
        let bytes = FIDOReportDescriptor.bytes
        // Usage Page 0xF1D0 (little-endian 16-bit item 0x06), Usage 0x01, Application collection.
        #expect(Array(bytes.prefix(7)) == [0x06, 0xD0, 0xF1, 0x09, 0x01, 0xA1, 0x01])
        // Input and Output main items, each after Report Size 8 and Report Count 64.
        #expect(bytes.filter { $0 == 0x95 }.count == 2)
        #expect(zip(bytes, bytes.dropFirst()).filter { $0 == (0x95, 0x40) }.count == 2)
        #expect(zip(bytes, bytes.dropFirst()).contains { $0 == (0x81, 0x02) })
        #expect(zip(bytes, bytes.dropFirst()).contains { $0 == (0x91, 0x02) })
        #expect(bytes.last == 0xC0)
        // No Report ID item (0x85): reports travel without a report-ID byte.
        #expect(!bytes.contains(0x85))
    }

    @Test func reportIDByteIsStrippedFrom65ByteWrites() {
        let report = (0..<64).map { UInt8($0) }
        #expect(UHIDNode.stripReportID([0] + report) == report)
        #expect(UHIDNode.stripReportID(report) == report)
        // A 65-byte write with a non-zero first byte is not a report-ID prefix; left as is (the
        // state machine then ignores it as a wrong-sized report).
        #expect(UHIDNode.stripReportID([7] + report).count == 65)
    }
}
