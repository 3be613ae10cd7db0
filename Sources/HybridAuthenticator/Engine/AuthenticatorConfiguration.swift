import HybridCTAP
import HybridCore

/// What the authenticator says about itself and how it attests.
public struct AuthenticatorConfiguration: Hashable, Sendable {
    /// How makeCredential attests new credentials.
    public enum Attestation: Hashable, Sendable {
        /// `"none"`: an empty statement (what phones send).
        case none
        /// `"packed"` self attestation: signed with the new credential's own key.
        case packedSelf
    }

    /// This program's AAGUID, fixed so relying parties can recognise it:
    /// `1f1a08ff-50da-8f39-7a4b-65898c7d3f0f`.
    public static let aaguid: [UInt8] = [
        0x1f, 0x1a, 0x08, 0xff, 0x50, 0xda, 0x8f, 0x39, 0x7a, 0x4b, 0x65, 0x89, 0x8c, 0x7d, 0x3f, 0x0f,
    ]

    /// getInfo key 3 and the AAGUID in attested credential data.
    public var aaguid: [UInt8]
    /// How makeCredential attests (`none` or packed self-attestation).
    public var attestation: Attestation
    /// getInfo key 1.
    public var versions: [String]
    /// getInfo key 9: what phones send (protocol.md §8.2).
    public var transports: [String]
    /// getInfo key 2: the extensions the engine implements. Chromium sends `prf` to a phone only
    /// when this lists it (protocol.md §8.3).
    public var extensions: [String]

    /// What the engine implements: `CredentialProtectionPolicy` and the prf secret.
    public static let supportedExtensions = ["credProtect", "prf"]

    /// A configuration; the defaults are what this program's phone sends.
    public init(
        aaguid: [UInt8] = Self.aaguid, attestation: Attestation = .none,
        versions: [String] = ["FIDO_2_0", "FIDO_2_1"], transports: [String] = ["internal", "hybrid"],
        extensions: [String] = Self.supportedExtensions
    ) {
        self.aaguid = aaguid
        self.attestation = attestation
        self.versions = versions
        self.transports = transports
        self.extensions = extensions
    }

    /// The getInfo response for this configuration: options rk, up and uv; ES256 only; the
    /// extensions; no PIN protocols.
    ///
    /// `uv` is `userVerificationConfigured`. CTAP 2.1 §6.4 (authenticatorGetInfo, options): "If present
    /// and set to true, it indicates that the device is capable of user verification within itself
    /// and has been configured. If present and set to false, it indicates that the device is capable
    /// of user verification within itself and has not been yet configured." This program can always
    /// verify with a store passphrase, so `uv` is present: `false` when this run cannot (plaintext
    /// store, or `--yes` without a passphrase). Clients then leave `uv` out where it is only
    /// preferred; where they require it, as Chrome does for every discoverable sign-in, the request
    /// fails with CTAP2_ERR_INVALID_OPTION.
    /// ``CTAPAuthenticator/getInfo`` passes its user interaction's ``UserInteraction/canVerifyUser``.
    package func getInfo(userVerificationConfigured: Bool) -> AuthenticatorGetInfoResponse {
        AuthenticatorGetInfoResponse(
            versions: versions, extensions: extensions.isEmpty ? nil : extensions, aaguid: aaguid,
            options: ["rk": true, "up": true, "uv": userVerificationConfigured],
            transports: transports, algorithms: [PublicKeyCredentialParameters(algorithm: COSEAlgorithm.es256)])
    }
}
