/// A CTAPHID command (CTAP 2.2 §11.2.9): the low 7 bits of an initialization packet's command
/// byte. A struct so that any byte can be carried; unknown ones get ``CTAPHIDErrorCode/invalidCommand``.
public struct CTAPHIDCommand: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The command byte without the initialization-packet bit (bit 7), 0x00…0x7F.
    public let rawValue: UInt8

    /// The command `rawValue` names; bit 7 (the initialization-packet flag) is dropped.
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0x7F }

    /// CTAPHID_PING: the payload is echoed back unchanged.
    public static let ping = Self(rawValue: 0x01)
    /// CTAP1/U2F APDU. This key is FIDO2-only and answers it with ``CTAPHIDErrorCode/invalidCommand``.
    public static let msg = Self(rawValue: 0x03)
    /// CTAPHID_LOCK: reserve the device for one channel for up to 10 seconds.
    public static let lock = Self(rawValue: 0x04)
    /// CTAPHID_INIT (§11.2.9.1.3): allocate a channel ID, or resynchronise an existing channel.
    public static let initialize = Self(rawValue: 0x06)
    /// CTAPHID_WINK: the host asks the key to identify itself to the user.
    public static let wink = Self(rawValue: 0x08)
    /// CTAPHID_CBOR: a CTAP2 request (command byte + CBOR), forwarded to the phone.
    public static let cbor = Self(rawValue: 0x10)
    /// CTAPHID_CANCEL (§11.2.9.1.5): abort the pending CBOR request on this channel.
    public static let cancel = Self(rawValue: 0x11)
    /// CTAPHID_KEEPALIVE: sent while a CBOR request is pending; see ``CTAPHIDKeepaliveStatus``.
    public static let keepalive = Self(rawValue: 0x3B)
    /// CTAPHID_ERROR (§11.2.9.1.6): a response whose payload is one ``CTAPHIDErrorCode``.
    public static let error = Self(rawValue: 0x3F)

    /// The spec's name (`PING`, `CBOR`, …), or the byte in hex for an unknown command.
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
    /// The error byte as sent on the wire.
    public let rawValue: UInt8

    /// The error code `rawValue` names (any byte, known or not).
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// ERR_INVALID_CMD: the command is not known or not supported (e.g. CTAPHID_MSG here).
    public static let invalidCommand = Self(rawValue: 0x01)
    /// ERR_INVALID_PAR: a parameter in the request is invalid.
    public static let invalidParameter = Self(rawValue: 0x02)
    /// ERR_INVALID_LEN: the announced length is invalid for the command.
    public static let invalidLength = Self(rawValue: 0x03)
    /// ERR_INVALID_SEQ: a continuation packet arrived out of sequence.
    public static let invalidSequence = Self(rawValue: 0x04)
    /// ERR_MSG_TIMEOUT: the next continuation packet did not arrive in time.
    public static let messageTimeout = Self(rawValue: 0x05)
    /// ERR_CHANNEL_BUSY: another channel has a transaction or lock in progress.
    public static let channelBusy = Self(rawValue: 0x06)
    /// ERR_LOCK_REQUIRED: the command requires a channel lock.
    public static let lockRequired = Self(rawValue: 0x0A)
    /// ERR_INVALID_CHANNEL: the command is not allowed on this channel ID (e.g. one never allocated).
    public static let invalidChannel = Self(rawValue: 0x0B)
    /// ERR_OTHER: an unspecified error.
    public static let other = Self(rawValue: 0x7F)
}

/// The payload byte of a CTAPHID_KEEPALIVE response (CTAP 2.2 §11.2.9.1.7).
public enum CTAPHIDKeepaliveStatus: UInt8, Sendable, Hashable {
    /// The authenticator is still working on the request.
    case processing = 1
    /// The authenticator waits for the user (here: to scan the QR code and approve on the phone).
    case userPresenceNeeded = 2
}

/// The capability flags of a CTAPHID_INIT response (CTAP 2.2 §11.2.9.1.3).
public struct CTAPHIDCapabilities: OptionSet, Hashable, Sendable {
    /// The capability byte of the INIT response.
    public let rawValue: UInt8

    /// The flags in `rawValue`.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// CTAPHID_WINK is implemented.
    public static let wink = Self(rawValue: 0x01)
    /// CTAPHID_CBOR is implemented.
    public static let cbor = Self(rawValue: 0x04)
    /// CTAPHID_MSG is **not** implemented (a FIDO2-only key).
    public static let noMessage = Self(rawValue: 0x08)
}
