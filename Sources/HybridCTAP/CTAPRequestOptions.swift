import HybridCore

/// The `options` map of makeCredential (key 7) and getAssertion (key 5): `rk`, `up`, `uv`.
///
/// Each is `nil` when absent; CTAP2 defines the defaults (rk false, up true, uv false), which
/// `effectiveUserPresence` and friends apply. Unknown option keys are ignored.
public struct CTAPRequestOptions: Hashable, Sendable {
    /// Resident key: create a discoverable credential.
    public var residentKey: Bool?
    /// User presence.
    public var userPresence: Bool?
    /// User verification.
    public var userVerification: Bool?

    /// Options; `nil` leaves an option out (its default applies).
    public init(residentKey: Bool? = nil, userPresence: Bool? = nil, userVerification: Bool? = nil) {
        self.residentKey = residentKey
        self.userPresence = userPresence
        self.userVerification = userVerification
    }

    /// `up`, defaulting to true.
    package var effectiveUserPresence: Bool { userPresence ?? true }
    /// `uv`, defaulting to false.
    package var effectiveUserVerification: Bool { userVerification ?? false }
    /// `rk`, defaulting to false.
    package var effectiveResidentKey: Bool { residentKey ?? false }

    /// Whether no option is set; such options are left out of a request.
    package var isEmpty: Bool { residentKey == nil && userPresence == nil && userVerification == nil }

    /// The options that are set, as a map of booleans.
    package var cbor: CBORValue {
        var entries: [CBORMapEntry] = []
        entries.append("rk", residentKey.map(CBORValue.bool))
        entries.append("up", userPresence.map(CBORValue.bool))
        entries.append("uv", userVerification.map(CBORValue.bool))
        return .map(entries)
    }

    /// Parses the map. `rk`, `up` and `uv` must be booleans when present; other keys are ignored.
    package init(cbor: CBORValue, path: String, decoding: CTAPDecoding = .strict) throws(CTAPError) {
        let reader = try CTAPMapReader(cbor, path: path, decoding: decoding)
        self.init(
            residentKey: try reader.bool("rk", "rk"),
            userPresence: try reader.bool("up", "up"),
            userVerification: try reader.bool("uv", "uv")
        )
    }
}
