/// A CTAPHID command (CTAP 2.2 §11.2.9): the low 7 bits of an initialization packet's command
/// byte. A struct so that any byte can be carried; unknown ones get ``CTAPHIDErrorCode/invalidCommand``.
public struct CTAPHIDCommand: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue & 0x7F }

    public static let ping = Self(rawValue: 0x01)
    /// CTAP1/U2F APDU. This key is FIDO2-only and answers it with ``CTAPHIDErrorCode/invalidCommand``.
    public static let msg = Self(rawValue: 0x03)
    public static let lock = Self(rawValue: 0x04)
    public static let initialize = Self(rawValue: 0x06)
    public static let wink = Self(rawValue: 0x08)
    public static let cbor = Self(rawValue: 0x10)
    public static let cancel = Self(rawValue: 0x11)
    public static let keepalive = Self(rawValue: 0x3B)
    public static let error = Self(rawValue: 0x3F)

    public var description: String {
        switch self {
        case .ping: "PING"
        case .msg: "MSG"
        case .lock: "LOCK"
        case .initialize: "INIT"
        case .wink: "WINK"
        case .cbor: "CBOR"
        case .cancel: "CANCEL"
        case .keepalive: "KEEPALIVE"
        case .error: "ERROR"
        default: "0x" + String(rawValue, radix: 16)
        }
    }
}

/// The payload byte of a CTAPHID_ERROR response (CTAP 2.2 §11.2.9.1.6).
public struct CTAPHIDErrorCode: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let invalidCommand = Self(rawValue: 0x01)
    public static let invalidParameter = Self(rawValue: 0x02)
    public static let invalidLength = Self(rawValue: 0x03)
    public static let invalidSequence = Self(rawValue: 0x04)
    public static let messageTimeout = Self(rawValue: 0x05)
    public static let channelBusy = Self(rawValue: 0x06)
    public static let lockRequired = Self(rawValue: 0x0A)
    public static let invalidChannel = Self(rawValue: 0x0B)
    public static let other = Self(rawValue: 0x7F)
}

/// The payload byte of a CTAPHID_KEEPALIVE response (CTAP 2.2 §11.2.9.2.4).
public enum CTAPHIDKeepaliveStatus: UInt8, Sendable, Hashable {
    /// The authenticator is still working on the request.
    case processing = 1
    /// The authenticator waits for the user (here: to scan the QR code and approve on the phone).
    case userPresenceNeeded = 2
}

/// The capability flags of a CTAPHID_INIT response (CTAP 2.2 §11.2.9.1.3).
public struct CTAPHIDCapabilities: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// CTAPHID_WINK is implemented.
    public static let wink = Self(rawValue: 0x01)
    /// CTAPHID_CBOR is implemented.
    public static let cbor = Self(rawValue: 0x04)
    /// CTAPHID_MSG is **not** implemented (a FIDO2-only key).
    public static let noMessage = Self(rawValue: 0x08)
}
