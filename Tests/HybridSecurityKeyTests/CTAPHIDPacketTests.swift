import HybridSecurityKey
import Testing

/// Packet layouts of CTAP 2.2 §11.2.4, with the expected bytes written out from the spec's
/// tables (offset: CID 0–3, CMD|0x80 4, BCNTH 5, BCNTL 6, DATA 7–63; continuation SEQ at 4,
/// DATA 5–63), not produced by the encoder under test.
@Suite struct CTAPHIDPacketTests {
    @Test func initializationPacketLayout() throws {
        var report = [UInt8](repeating: 0, count: 64)
        report[0...3] = [0x12, 0x34, 0x56, 0x78]
        report[4] = 0x90  // CBOR | 0x80
        report[5] = 0x01
        report[6] = 0x02  // 258 bytes
        report[7] = 0xAA
        let packet = try CTAPHIDPacket(report: report)
        guard case .initialization(let channel, let command, let length, let data) = packet else {
            Issue.record("not an initialization packet")
            return
        }
        #expect(channel == 0x1234_5678)
        #expect(command == .cbor)
        #expect(length == 258)
        #expect(data.count == 57)
        #expect(data[0] == 0xAA)
        #expect(packet.report == report)
    }

    @Test func continuationPacketLayout() throws {
        var report = [UInt8](repeating: 0, count: 64)
        report[0...3] = [0xFF, 0xFF, 0xFF, 0xFE]
        report[4] = 0x7F
        report[5] = 0x55
        report[63] = 0x66
        let packet = try CTAPHIDPacket(report: report)
        #expect(
            packet
                == .continuation(
                    channel: 0xFFFF_FFFE, sequence: 0x7F, data: [0x55] + [UInt8](repeating: 0, count: 57) + [0x66]))
        #expect(packet.report == report)
    }

    @Test func maximumMessageIs7609Bytes() {
        #expect(CTAPHIDPacket.maximumMessageLength == 64 - 7 + 128 * (64 - 5))
        #expect(CTAPHIDPacket.maximumMessageLength == 7609)
    }

    @Test(arguments: [0, 1, 63, 65, 128])
    func reportOfWrongSizeIsATypedError(size: Int) {
        #expect(throws: CTAPHIDPacketError.wrongReportSize(size)) {
            try CTAPHIDPacket(report: [UInt8](repeating: 0x81, count: size))
        }
    }

    @Test func announcedLengthBeyondTheMaximumIsATypedError() {
        var report = [UInt8](repeating: 0, count: 64)
        report[0...3] = [0, 0, 0, 1]
        report[4] = 0x90
        report[5] = 0x1D
        report[6] = 0xBA  // 7610
        #expect(throws: CTAPHIDPacketError.lengthTooLarge(channel: 1, length: 7610)) {
            try CTAPHIDPacket(report: report)
        }
        report[6] = 0xB9  // 7609 is allowed
        #expect((try? CTAPHIDPacket(report: report)) != nil)
    }

    /// A 7609-byte message fills one initialization and exactly 128 continuation packets,
    /// sequence 0…127, each carrying the next slice of the payload.
    @Test func fragmentationOfTheLargestMessage() throws {
        let payload = (0..<7609).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let reports = CTAPHIDMessage(channel: 7, command: .cbor, payload: payload).reports
        #expect(reports.count == 129)
        #expect(Array(reports[0][0..<7]) == [0, 0, 0, 7, 0x90, 0x1D, 0xB9])
        #expect(Array(reports[0][7...]) == Array(payload[0..<57]))
        for index in 1..<129 {
            let report = reports[index]
            #expect(report.count == 64)
            #expect(Array(report[0..<5]) == [0, 0, 0, 7, UInt8(index - 1)])
            let start = 57 + (index - 1) * 59
            #expect(Array(report[5...]) == Array(payload[start..<(start + 59)]))
        }
    }

    @Test func emptyMessageIsOneZeroPaddedPacket() {
        let reports = CTAPHIDMessage(channel: 0x0102_0304, command: .wink, payload: []).reports
        #expect(reports == [[1, 2, 3, 4, 0x88, 0, 0] + [UInt8](repeating: 0, count: 57)])
    }
}
