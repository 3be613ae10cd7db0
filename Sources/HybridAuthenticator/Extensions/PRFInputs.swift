import Crypto
import HybridCTAP
import HybridCore

/// One evaluation of the `prf` extension: the salts the client already hashed
/// (SHA-256("WebAuthn PRF" ‖ 0x00 ‖ input), WebAuthn L3 §10.1.4), 32 bytes each.
///
/// CTAP form, as Chromium sends it to a phone that lists "prf" in getInfo:
/// `{"first": bstr(32), ? "second": bstr(32)}`.
struct PRFSalts: Hashable, Sendable {
    static let length = 32

    let first: [UInt8]
    let second: [UInt8]?

    init(first: [UInt8], second: [UInt8]?) {
        self.first = first
        self.second = second
    }

    /// Parses `{"first", ? "second"}`; other keys are ignored, as Chromium ignores them.
    init(cbor value: CBORValue, field: String) throws(CTAPError) {
        guard value.mapEntries != nil else { throw .unexpectedType(field: field) }
        guard let first = value[textKey: "first"] else { throw .missingParameter(field: field + ".first") }
        self.first = try Self.salt(first, field: field + ".first")
        second = try value[textKey: "second"].map { (salt) throws(CTAPError) in
            try Self.salt(salt, field: field + ".second")
        }
    }

    private static func salt(_ value: CBORValue, field: String) throws(CTAPError) -> [UInt8] {
        guard let bytes = value.bytesValue else { throw .unexpectedType(field: field) }
        guard bytes.count == length else { throw .invalidLength(field: field) }
        return bytes
    }

    /// The results under a credential's secret: `{"first": HMAC-SHA256(secret, first),
    /// ? "second": HMAC-SHA256(secret, second)}`, the `results` member of the prf output.
    func results(secret: [UInt8]) -> CBORValue {
        let key = SymmetricKey(data: secret)
        func evaluate(_ salt: [UInt8]) -> CBORValue {
            .bytes(Array(HMAC<SHA256>.authenticationCode(for: salt, using: key)))
        }
        var entries = [CBORMapEntry("first", evaluate(first))]
        if let second { entries.append(CBORMapEntry("second", evaluate(second))) }
        return .map(entries)
    }
}

/// The extension inputs of a makeCredential request this authenticator acts on. Unknown
/// extensions are ignored (CTAP 2.1 §12: an authenticator ignores extensions it does not support).
struct MakeCredentialExtensionInputs: Hashable, Sendable {
    /// `"credProtect": uint` (1–3).
    var credentialProtection: CredentialProtectionPolicy?
    /// Whether `"prf"` was present: `{}` or `{"eval": salts}`.
    var prfRequested = false
    /// `prf.eval`, evaluated at creation when the user is verified.
    var prfEval: PRFSalts?

    init(_ extensions: CBORValue?) throws(CTAPError) {
        guard let extensions else { return }
        guard extensions.mapEntries != nil else { throw .unexpectedType(field: "makeCredential.extensions") }
        if let level = extensions[textKey: "credProtect"] {
            guard let raw = level.intValue else {
                throw .unexpectedType(field: "makeCredential.extensions.credProtect")
            }
            guard let policy = UInt8(exactly: raw).flatMap(CredentialProtectionPolicy.init(rawValue:)) else {
                throw .invalidParameter(field: "makeCredential.extensions.credProtect")
            }
            credentialProtection = policy
        }
        if let prf = extensions[textKey: "prf"] {
            guard prf.mapEntries != nil else { throw .unexpectedType(field: "makeCredential.extensions.prf") }
            prfRequested = true
            prfEval = try prf[textKey: "eval"].map { (eval) throws(CTAPError) in
                try PRFSalts(cbor: eval, field: "makeCredential.extensions.prf.eval")
            }
        }
    }
}

/// The extension inputs of a getAssertion request this authenticator acts on.
struct GetAssertionExtensionInputs: Hashable, Sendable {
    /// `prf.eval`.
    var prfEval: PRFSalts?
    /// `prf.evalByCredential`: credential ID (bstr) → salts.
    var prfByCredential: [[UInt8]: PRFSalts] = [:]

    init(_ extensions: CBORValue?) throws(CTAPError) {
        guard let extensions else { return }
        guard extensions.mapEntries != nil else { throw .unexpectedType(field: "getAssertion.extensions") }
        guard let prf = extensions[textKey: "prf"] else { return }
        let field = "getAssertion.extensions.prf"
        guard prf.mapEntries != nil else { throw .unexpectedType(field: field) }
        prfEval = try prf[textKey: "eval"].map { (eval) throws(CTAPError) in
            try PRFSalts(cbor: eval, field: field + ".eval")
        }
        if let byCredential = prf[textKey: "evalByCredential"] {
            guard let entries = byCredential.mapEntries else {
                throw .unexpectedType(field: field + ".evalByCredential")
            }
            for entry in entries {
                guard let id = entry.key.bytesValue, !id.isEmpty else {
                    throw .invalidParameter(field: field + ".evalByCredential")
                }
                prfByCredential[id] = try PRFSalts(cbor: entry.value, field: field + ".evalByCredential")
            }
        }
    }

    /// The salts for the credential that signs: its own `evalByCredential` entry, else `eval`
    /// (WebAuthn L3 §10.1.4, what the client would have picked had it known the credential).
    func prfSalts(forCredential id: [UInt8]) -> PRFSalts? { prfByCredential[id] ?? prfEval }
}
