/// The messages between the unprivileged security-key agent (`hybrid-security-key`) and the
/// privileged key broker (`hybrid-key-broker`), one per `SOCK_SEQPACKET` datagram.
///
/// The protocol has no field for a report descriptor, a device name or an identity: the broker
/// creates exactly one kind of device, the FIDO key, and the agent can only ask for it, feed it
/// input reports of exactly ``KeyBrokerMessage/reportSize`` bytes and read what programs send it.
package enum KeyBrokerMessage {
    /// Every CTAPHID report is 64 bytes (CTAP 2.2 §11.2.4); the broker forwards no other size.
    package static let reportSize = 64
    /// The protocol version the agent asks for in ``AgentMessage/requestKey(version:)``.
    package static let version: UInt8 = 1
    /// The largest datagram either side sends or accepts (a created message with a hidraw path).
    package static let maximumSize = 256
}

/// What the agent sends the broker.
package enum AgentMessage: Equatable, Sendable {
    /// Make me a key (once per connection), speaking protocol `version`.
    case requestKey(version: UInt8)
    /// One input report for the programs that use the key (exactly 64 bytes).
    case inputReport([UInt8])

    private static let requestKeyType: UInt8 = 0x01
    private static let inputReportType: UInt8 = 0x02

    /// The datagram.
    package var encoded: [UInt8] {
        switch self {
        case .requestKey(let version): [Self.requestKeyType, version]
        case .inputReport(let report): [Self.inputReportType] + report
        }
    }

    /// Parses one datagram strictly: a known type and exactly its length.
    /// - Throws: ``KeyBrokerProtocolError``.
    package init(decoding datagram: [UInt8]) throws(KeyBrokerProtocolError) {
        guard let type = datagram.first else { throw .empty }
        switch type {
        case Self.requestKeyType:
            guard datagram.count == 2 else { throw .wrongLength(type: type, length: datagram.count) }
            self = .requestKey(version: datagram[1])
        case Self.inputReportType:
            guard datagram.count == 1 + KeyBrokerMessage.reportSize else {
                throw .wrongLength(type: type, length: datagram.count)
            }
            self = .inputReport(Array(datagram.dropFirst()))
        default:
            throw .unknownType(type)
        }
    }
}

/// What the broker sends the agent.
package enum BrokerMessage: Equatable, Sendable {
    /// The key exists; programs find it at `hidraw` (`/dev/hidrawN`, owned by the agent's user).
    case created(hidraw: String)
    /// A program sent the key an output report (64 bytes).
    case outputReport([UInt8])
    /// The last program that had the key open closed it: any request in flight is abandoned.
    case closed
    /// The key was removed (the agent should cancel what is in flight); the connection stays
    /// open and ``created(hidraw:)`` follows when the session is active again.
    case removed(KeyBrokerRefusal)
    /// No key now, for this reason; ``created(hidraw:)`` follows if the reason goes away.
    case refused(KeyBrokerRefusal)

    private static let createdType: UInt8 = 0x81
    private static let outputReportType: UInt8 = 0x82
    private static let closedType: UInt8 = 0x83
    private static let removedType: UInt8 = 0x84
    private static let refusedType: UInt8 = 0x85

    /// The datagram.
    package var encoded: [UInt8] {
        switch self {
        case .created(let hidraw): [Self.createdType] + Array(hidraw.utf8)
        case .outputReport(let report): [Self.outputReportType] + report
        case .closed: [Self.closedType]
        case .removed(let reason): [Self.removedType, reason.rawValue]
        case .refused(let reason): [Self.refusedType, reason.rawValue]
        }
    }

    /// Parses one datagram strictly.
    /// - Throws: ``KeyBrokerProtocolError``.
    package init(decoding datagram: [UInt8]) throws(KeyBrokerProtocolError) {
        guard let type = datagram.first else { throw .empty }
        let body = Array(datagram.dropFirst())
        switch type {
        case Self.createdType:
            guard (1..<KeyBrokerMessage.maximumSize).contains(body.count),
                let path = String(validating: body, as: UTF8.self),
                path.hasPrefix("/dev/")
            else { throw .wrongLength(type: type, length: datagram.count) }
            self = .created(hidraw: path)
        case Self.outputReportType:
            guard body.count == KeyBrokerMessage.reportSize else {
                throw .wrongLength(type: type, length: datagram.count)
            }
            self = .outputReport(body)
        case Self.closedType:
            guard body.isEmpty else { throw .wrongLength(type: type, length: datagram.count) }
            self = .closed
        case Self.removedType, Self.refusedType:
            guard body.count == 1 else { throw .wrongLength(type: type, length: datagram.count) }
            guard let reason = KeyBrokerRefusal(rawValue: body[0]) else { throw .unknownReason(body[0]) }
            self = type == Self.removedType ? .removed(reason) : .refused(reason)
        default:
            throw .unknownType(type)
        }
    }
}

/// A datagram that is not a message of the key broker protocol.
package enum KeyBrokerProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    case unknownType(UInt8)
    case wrongLength(type: UInt8, length: Int)
    case unknownReason(UInt8)
    /// A message the sender may not send in this state (a second key request, a report before the key).
    case unexpected(String)

    package var description: String {
        switch self {
        case .empty: "an empty key broker message"
        case .unknownType(let type): "unknown key broker message type \(type)"
        case .wrongLength(let type, let length): "key broker message type \(type) with the wrong length \(length)"
        case .unknownReason(let reason): "unknown key broker reason \(reason)"
        case .unexpected(let what): "unexpected key broker message: \(what)"
        }
    }
}
