import Testing

@testable import HybridKeyBroker

/// The broker's wire messages: strict lengths and types both ways, and no message that could carry
/// a report descriptor or any device identity.
@Suite struct KeyBrokerMessageTests {
    @Test func agentMessagesRoundTripAndAreStrict() throws {
        let report = (0..<64).map { UInt8($0) }
        #expect(try AgentMessage(decoding: [0x01, 0x01]) == .requestKey(version: 1))
        #expect(try AgentMessage(decoding: [0x02] + report) == .inputReport(report))
        #expect(AgentMessage.inputReport(report).encoded == [0x02] + report)
        #expect(throws: KeyBrokerProtocolError.empty) { try AgentMessage(decoding: []) }
        #expect(throws: KeyBrokerProtocolError.wrongLength(type: 2, length: 64)) {
            try AgentMessage(decoding: [0x02] + report.dropLast())
        }
        #expect(throws: KeyBrokerProtocolError.wrongLength(type: 2, length: 66)) {
            try AgentMessage(decoding: [0x02] + report + [0])
        }
        #expect(throws: KeyBrokerProtocolError.wrongLength(type: 1, length: 3)) {
            try AgentMessage(decoding: [0x01, 0x01, 0x00])
        }
        // Every other type byte is refused: there is no "create with this descriptor".
        for type in UInt8.min...UInt8.max where type != 0x01 && type != 0x02 {
            #expect(throws: KeyBrokerProtocolError.unknownType(type)) { try AgentMessage(decoding: [type, 0, 0]) }
        }
    }

    @Test func brokerMessagesRoundTripAndAreStrict() throws {
        let report = [UInt8](repeating: 7, count: 64)
        let messages: [BrokerMessage] =
            [.created(hidraw: "/dev/hidraw5"), .outputReport(report), .closed]
            + KeyBrokerRefusal.allCases.flatMap { [BrokerMessage.removed($0), .refused($0)] }
        for message in messages {
            #expect(try BrokerMessage(decoding: message.encoded) == message)
        }
        #expect(throws: KeyBrokerProtocolError.unknownReason(0)) { try BrokerMessage(decoding: [0x85, 0]) }
        #expect(throws: KeyBrokerProtocolError.wrongLength(type: 0x81, length: 11)) {
            try BrokerMessage(decoding: [0x81] + Array("/tmp/evil".utf8) + [0])
        }
        #expect(throws: KeyBrokerProtocolError.wrongLength(type: 0x83, length: 2)) {
            try BrokerMessage(decoding: [0x83, 0])
        }
    }
}
