import HybridCore

/// The command byte that starts every CTAP2 request (CTAP 2.1 §6 "Authenticator API").
///
/// A struct so that any byte can be carried (an authenticator answers unknown ones with
/// ``CTAPStatusCode/invalidCommand``).
public struct CTAPCommand: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The command byte.
    public let rawValue: UInt8

    /// A command from its byte; any byte is accepted.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// authenticatorMakeCredential (0x01).
    public static let makeCredential = Self(rawValue: 0x01)
    /// authenticatorGetAssertion (0x02).
    public static let getAssertion = Self(rawValue: 0x02)
    /// authenticatorGetInfo (0x04).
    public static let getInfo = Self(rawValue: 0x04)
    /// authenticatorClientPIN (0x06).
    public static let clientPIN = Self(rawValue: 0x06)
    /// authenticatorReset (0x07).
    public static let reset = Self(rawValue: 0x07)
    /// authenticatorGetNextAssertion (0x08).
    public static let getNextAssertion = Self(rawValue: 0x08)
    /// authenticatorBioEnrollment (0x09).
    public static let bioEnrollment = Self(rawValue: 0x09)
    /// authenticatorCredentialManagement (0x0A).
    public static let credentialManagement = Self(rawValue: 0x0A)
    /// authenticatorSelection (0x0B).
    public static let selection = Self(rawValue: 0x0B)
    /// authenticatorLargeBlobs (0x0C).
    public static let largeBlobs = Self(rawValue: 0x0C)
    /// authenticatorConfig (0x0D).
    public static let config = Self(rawValue: 0x0D)
    /// The CTAP 2.1 preview of bioEnrollment (0x40).
    public static let bioEnrollmentPreview = Self(rawValue: 0x40)
    /// The CTAP 2.1 preview of credentialManagement (0x41).
    public static let credentialManagementPreview = Self(rawValue: 0x41)

    /// The spec name without the `authenticator` prefix, or `nil` for an unknown byte.
    public var name: String? {
        switch rawValue {
        case 0x01: "makeCredential"
        case 0x02: "getAssertion"
        case 0x04: "getInfo"
        case 0x06: "clientPIN"
        case 0x07: "reset"
        case 0x08: "getNextAssertion"
        case 0x09: "bioEnrollment"
        case 0x0A: "credentialManagement"
        case 0x0B: "selection"
        case 0x0C: "largeBlobs"
        case 0x0D: "config"
        case 0x40: "bioEnrollmentPreview"
        case 0x41: "credentialManagementPreview"
        default: nil
        }
    }

    /// `0x01 authenticatorMakeCredential`, for logs.
    public var description: String { "0x" + Hex.encode([rawValue]) + " " + (name ?? "unknown") }
}
