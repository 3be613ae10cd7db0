import HybridCTAP
import HybridCore

/// The extension inputs of `create()` and `get()` that this client processes (WebAuthn L3 §9–10,
/// CTAP 2.1 §12), in their JSON form (`AuthenticationExtensionsClientInputsJSON`). Other extension
/// identifiers are listed in the options' `ignoredExtensions` and otherwise ignored, as browsers do.

/// `prf` inputs: a default input and per-credential inputs (keys are credential IDs).
public struct PRFInputs: Sendable, Hashable {
    /// Inputs for any credential.
    public var eval: PRFValues?
    /// Inputs per credential ID (get() only).
    public var evalByCredential: [[UInt8]: PRFValues]

    /// Creates the value from its members; the defaults are the WebAuthn defaults.
    public init(eval: PRFValues? = nil, evalByCredential: [[UInt8]: PRFValues] = [:]) {
        self.eval = eval
        self.evalByCredential = evalByCredential
    }
}

/// `largeBlob.support` at creation.
public enum LargeBlobSupport: String, Sendable, Hashable {
    case required
    case preferred
}

/// Extension inputs of `create()`.
public struct RegistrationExtensionInputs: Sendable, Hashable {
    /// `prf`; `nil` when absent. Only `eval` is allowed at creation.
    public var prf: PRFInputs?
    /// `credProps: true`.
    public var credProps: Bool
    /// `largeBlob.support`; `nil` when not requested.
    public var largeBlob: LargeBlobSupport?
    /// The credProtect policy asked for.
    public var credentialProtectionPolicy: CredentialProtectionPolicy?
    /// Whether creation fails if the phone cannot apply the policy.
    public var enforceCredentialProtectionPolicy: Bool

    /// Creates the value from its members; the defaults are the WebAuthn defaults.
    public init(
        prf: PRFInputs? = nil, credProps: Bool = false, largeBlob: LargeBlobSupport? = nil,
        credentialProtectionPolicy: CredentialProtectionPolicy? = nil, enforceCredentialProtectionPolicy: Bool = false
    ) {
        self.prf = prf
        self.credProps = credProps
        self.largeBlob = largeBlob
        self.credentialProtectionPolicy = credentialProtectionPolicy
        self.enforceCredentialProtectionPolicy = enforceCredentialProtectionPolicy
    }

    /// The identifiers this type processes.
    static let processed: Set<String> = [
        "prf", "credProps", "largeBlob", "credentialProtectionPolicy", "enforceCredentialProtectionPolicy",
    ]
}

/// Extension inputs of `get()`.
public struct AuthenticationExtensionInputs: Sendable, Hashable {
    /// `prf`; `nil` when absent.
    public var prf: PRFInputs?
    /// `largeBlob.read: true`.
    public var largeBlobRead: Bool
    /// `largeBlob.write`: the blob to store (uncompressed).
    public var largeBlobWrite: [UInt8]?

    /// Creates the value from its members; the defaults are the WebAuthn defaults.
    public init(prf: PRFInputs? = nil, largeBlobRead: Bool = false, largeBlobWrite: [UInt8]? = nil) {
        self.prf = prf
        self.largeBlobRead = largeBlobRead
        self.largeBlobWrite = largeBlobWrite
    }

    static let processed: Set<String> = ["prf", "largeBlob"]
}
