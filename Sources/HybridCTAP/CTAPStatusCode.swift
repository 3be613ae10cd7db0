import HybridCore

/// The status byte that starts every CTAP2 response (CTAP 2.1 §8.2 "Status codes").
///
/// A struct rather than an enum, because a peer may send any byte, including vendor and
/// extension codes; every code of the CTAP 2.1 list has a named constant, a spec name and a
/// human message. Note the CBOR-related values: 0x11 is an unexpected CBOR type, 0x12 invalid
/// CBOR, 0x14 a missing parameter.
public struct CTAPStatusCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The status byte.
    public let rawValue: UInt8

    /// A status from its byte; any byte is accepted.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The spec name (`CTAP2_ERR_NO_CREDENTIALS`), or `nil` for a code outside the CTAP 2.1 list.
    public var name: String? { Self.table[rawValue]?.name }

    /// A sentence for people, for every byte (ranges for extension and vendor codes).
    public var message: String {
        if let entry = Self.table[rawValue] { return entry.message }
        switch rawValue {
        case 0xE0...0xEF: return "Extension-specific error."
        case 0xF0...0xFF: return "Vendor-specific error."
        default: return "Unknown status code."
        }
    }

    /// `0x2E CTAP2_ERR_NO_CREDENTIALS: …`, for logs.
    public var description: String {
        "0x" + Hex.encode([rawValue]) + " " + (name ?? "unknown") + ": " + message
    }

    /// Whether this is `CTAP2_OK`.
    public var isSuccess: Bool { rawValue == 0x00 }
}

extension CTAPStatusCode {
    /// CTAP2_OK (0x00): success.
    public static let ok = Self(rawValue: 0x00)
    /// CTAP1_ERR_INVALID_COMMAND (0x01).
    public static let invalidCommand = Self(rawValue: 0x01)
    /// CTAP1_ERR_INVALID_PARAMETER (0x02).
    public static let invalidParameter = Self(rawValue: 0x02)
    package static let invalidLength = Self(rawValue: 0x03)
    package static let invalidSequence = Self(rawValue: 0x04)
    package static let timeout = Self(rawValue: 0x05)
    package static let channelBusy = Self(rawValue: 0x06)
    package static let lockRequired = Self(rawValue: 0x0A)
    package static let invalidChannel = Self(rawValue: 0x0B)
    package static let cborUnexpectedType = Self(rawValue: 0x11)
    /// CTAP2_ERR_INVALID_CBOR (0x12).
    public static let invalidCBOR = Self(rawValue: 0x12)
    /// CTAP2_ERR_MISSING_PARAMETER (0x14).
    public static let missingParameter = Self(rawValue: 0x14)
    package static let limitExceeded = Self(rawValue: 0x15)
    package static let fingerprintDatabaseFull = Self(rawValue: 0x17)
    package static let largeBlobStorageFull = Self(rawValue: 0x18)
    /// CTAP2_ERR_CREDENTIAL_EXCLUDED (0x19).
    public static let credentialExcluded = Self(rawValue: 0x19)
    package static let processing = Self(rawValue: 0x21)
    package static let invalidCredential = Self(rawValue: 0x22)
    package static let userActionPending = Self(rawValue: 0x23)
    package static let operationPending = Self(rawValue: 0x24)
    package static let noOperations = Self(rawValue: 0x25)
    /// CTAP2_ERR_UNSUPPORTED_ALGORITHM (0x26).
    public static let unsupportedAlgorithm = Self(rawValue: 0x26)
    /// CTAP2_ERR_OPERATION_DENIED (0x27).
    public static let operationDenied = Self(rawValue: 0x27)
    package static let keyStoreFull = Self(rawValue: 0x28)
    /// CTAP2_ERR_UNSUPPORTED_OPTION (0x2B).
    public static let unsupportedOption = Self(rawValue: 0x2B)
    /// CTAP2_ERR_INVALID_OPTION (0x2C).
    public static let invalidOption = Self(rawValue: 0x2C)
    /// CTAP2_ERR_KEEPALIVE_CANCEL (0x2D).
    public static let keepaliveCancel = Self(rawValue: 0x2D)
    /// CTAP2_ERR_NO_CREDENTIALS (0x2E).
    public static let noCredentials = Self(rawValue: 0x2E)
    /// CTAP2_ERR_USER_ACTION_TIMEOUT (0x2F).
    public static let userActionTimeout = Self(rawValue: 0x2F)
    /// CTAP2_ERR_NOT_ALLOWED (0x30).
    public static let notAllowed = Self(rawValue: 0x30)
    package static let pinInvalid = Self(rawValue: 0x31)
    package static let pinBlocked = Self(rawValue: 0x32)
    package static let pinAuthInvalid = Self(rawValue: 0x33)
    package static let pinAuthBlocked = Self(rawValue: 0x34)
    package static let pinNotSet = Self(rawValue: 0x35)
    package static let pinUvAuthTokenRequired = Self(rawValue: 0x36)
    package static let pinPolicyViolation = Self(rawValue: 0x37)
    package static let requestTooLarge = Self(rawValue: 0x39)
    package static let actionTimeout = Self(rawValue: 0x3A)
    package static let userPresenceRequired = Self(rawValue: 0x3B)
    package static let userVerificationBlocked = Self(rawValue: 0x3C)
    package static let integrityFailure = Self(rawValue: 0x3D)
    package static let invalidSubcommand = Self(rawValue: 0x3E)
    package static let userVerificationInvalid = Self(rawValue: 0x3F)
    package static let unauthorizedPermission = Self(rawValue: 0x40)
    package static let other = Self(rawValue: 0x7F)

    private static let table: [UInt8: (name: String, message: String)] = [
        0x00: ("CTAP2_OK", "Success."),
        0x01: ("CTAP1_ERR_INVALID_COMMAND", "The command is not a valid CTAP command."),
        0x02: ("CTAP1_ERR_INVALID_PARAMETER", "The command included an invalid parameter."),
        0x03: ("CTAP1_ERR_INVALID_LENGTH", "Invalid message or item length."),
        0x04: ("CTAP1_ERR_INVALID_SEQ", "Invalid message sequencing."),
        0x05: ("CTAP1_ERR_TIMEOUT", "Message timed out."),
        0x06: ("CTAP1_ERR_CHANNEL_BUSY", "Channel busy."),
        0x0A: ("CTAP1_ERR_LOCK_REQUIRED", "Command requires channel lock."),
        0x0B: ("CTAP1_ERR_INVALID_CHANNEL", "Command not allowed on this channel."),
        0x11: ("CTAP2_ERR_CBOR_UNEXPECTED_TYPE", "Invalid or unexpected CBOR type."),
        0x12: ("CTAP2_ERR_INVALID_CBOR", "Error when parsing CBOR."),
        0x14: ("CTAP2_ERR_MISSING_PARAMETER", "A required parameter is missing."),
        0x15: ("CTAP2_ERR_LIMIT_EXCEEDED", "A limit for the number of items was exceeded."),
        0x17: ("CTAP2_ERR_FP_DATABASE_FULL", "The fingerprint database is full."),
        0x18: ("CTAP2_ERR_LARGE_BLOB_STORAGE_FULL", "The large-blob storage is full."),
        0x19: (
            "CTAP2_ERR_CREDENTIAL_EXCLUDED", "A credential in the exclude list already exists on this authenticator."
        ),
        0x21: ("CTAP2_ERR_PROCESSING", "Processing (lengthy operation in progress)."),
        0x22: ("CTAP2_ERR_INVALID_CREDENTIAL", "The credential is not valid for this authenticator."),
        0x23: ("CTAP2_ERR_USER_ACTION_PENDING", "Authentication is waiting for user interaction."),
        0x24: ("CTAP2_ERR_OPERATION_PENDING", "Processing, lengthy operation in progress."),
        0x25: ("CTAP2_ERR_NO_OPERATIONS", "No request is pending."),
        0x26: ("CTAP2_ERR_UNSUPPORTED_ALGORITHM", "The authenticator does not support the requested algorithm."),
        0x27: ("CTAP2_ERR_OPERATION_DENIED", "The user or the authenticator denied the operation."),
        0x28: ("CTAP2_ERR_KEY_STORE_FULL", "The internal key storage is full."),
        0x2B: ("CTAP2_ERR_UNSUPPORTED_OPTION", "Unsupported option."),
        0x2C: ("CTAP2_ERR_INVALID_OPTION", "Not a valid option for the current operation."),
        0x2D: ("CTAP2_ERR_KEEPALIVE_CANCEL", "A pending keep-alive was cancelled."),
        0x2E: ("CTAP2_ERR_NO_CREDENTIALS", "No valid credentials were provided or found."),
        0x2F: ("CTAP2_ERR_USER_ACTION_TIMEOUT", "A user action timed out."),
        0x30: ("CTAP2_ERR_NOT_ALLOWED", "Continuation command, such as getNextAssertion, not allowed."),
        0x31: ("CTAP2_ERR_PIN_INVALID", "The PIN is invalid."),
        0x32: ("CTAP2_ERR_PIN_BLOCKED", "The PIN is blocked."),
        0x33: ("CTAP2_ERR_PIN_AUTH_INVALID", "The PIN/UV authentication parameter failed verification."),
        0x34: ("CTAP2_ERR_PIN_AUTH_BLOCKED", "PIN/UV authentication is blocked until power cycle."),
        0x35: ("CTAP2_ERR_PIN_NOT_SET", "No PIN has been set."),
        0x36: ("CTAP2_ERR_PUAT_REQUIRED", "A pinUvAuthToken is required for this operation."),
        0x37: ("CTAP2_ERR_PIN_POLICY_VIOLATION", "The PIN does not satisfy the PIN policy."),
        0x39: ("CTAP2_ERR_REQUEST_TOO_LARGE", "The request is larger than the authenticator can handle."),
        0x3A: ("CTAP2_ERR_ACTION_TIMEOUT", "The current operation has timed out."),
        0x3B: ("CTAP2_ERR_UP_REQUIRED", "User presence is required for the requested operation."),
        0x3C: ("CTAP2_ERR_UV_BLOCKED", "Built-in user verification is blocked."),
        0x3D: ("CTAP2_ERR_INTEGRITY_FAILURE", "A checksum did not match."),
        0x3E: ("CTAP2_ERR_INVALID_SUBCOMMAND", "The requested subcommand is invalid or not implemented."),
        0x3F: ("CTAP2_ERR_UV_INVALID", "Built-in user verification failed (no match)."),
        0x40: ("CTAP2_ERR_UNAUTHORIZED_PERMISSION", "The permissions parameter is not authorized for this command."),
        0x7F: ("CTAP1_ERR_OTHER", "Other unspecified error."),
    ]
}
