import HybridCore

/// Reading extension output maps from a phone's answer (authenticator data extensions, unsigned
/// extension outputs), as Chromium's `device_response_converter` does.
enum ExtensionOutputs {
    /// The entries of an output map (none when absent); a map with a non-text key, or anything but a
    /// map, is refused.
    static func entries(_ value: CBORValue?) throws(ResponseMappingError) -> [(name: String, value: CBORValue)] {
        guard let value else { return [] }
        guard let entries = value.mapEntries else { throw .unexpectedExtension("not a map") }
        var out: [(name: String, value: CBORValue)] = []
        for entry in entries {
            guard let name = entry.key.textValue else { throw .unexpectedExtension("a key that is not text") }
            out.append((name, entry.value))
        }
        return out
    }

    /// A `prf` unsigned output: `{"enabled"?: bool, "results"?: {"first": 32 bytes, "second"?: 32 bytes}}`.
    /// Results are accepted only when the PRF was evaluated (inputs were sent).
    static func prf(_ value: CBORValue, evaluated: Bool) throws(ResponseMappingError) -> (
        enabled: Bool?, results: PRFValues?
    ) {
        guard value.mapEntries != nil else { throw .unexpectedExtension("prf") }
        let enabled = value[textKey: "enabled"]
        if let enabled, enabled.boolValue == nil { throw .unexpectedExtension("prf") }
        var results: PRFValues?
        if let resultsValue = value[textKey: "results"] {
            guard evaluated, let parsed = PRFValues(results: resultsValue) else { throw .unexpectedExtension("prf") }
            results = parsed
        }
        return (enabled?.boolValue, results)
    }
}
