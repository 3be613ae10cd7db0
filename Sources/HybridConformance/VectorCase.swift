import HybridCore

/// One case of a vector file: the common keys of SCHEMA.md §2 plus typed access to the others.
package struct VectorCase: Sendable {
    /// The case's `name`, unique within its file.
    package let name: String
    /// Whether the inputs must be accepted (`true`) or rejected (`false`).
    package let valid: Bool
    /// Error classes (SCHEMA.md §3) a rejection may report: `error` first, then `errorAlternatives`.
    package let acceptableErrors: [String]
    /// Every key of the case object.
    package let fields: [String: JSONValue]

    init(_ value: JSONValue) throws(VectorMismatch) {
        guard case .object(let fields) = value else { throw VectorMismatch("case is not an object") }
        self.fields = fields
        guard case .string(let name)? = fields["name"] else { throw VectorMismatch("case has no name") }
        self.name = name
        guard case .bool(let valid)? = fields["valid"] else { throw VectorMismatch("case has no valid flag") }
        self.valid = valid
        var errors: [String] = []
        if case .string(let error)? = fields["error"] { errors.append(error) }
        if case .array(let alternatives)? = fields["errorAlternatives"] {
            for case .string(let alternative) in alternatives { errors.append(alternative) }
        }
        if !valid && errors.isEmpty { throw VectorMismatch("invalid case has no error class") }
        self.acceptableErrors = errors
    }

    /// Whether `key` is present and not JSON null.
    package func has(_ key: String) -> Bool {
        if let value = fields[key], value != .null { return true }
        return false
    }

    /// A required value.
    package func value(_ key: String) throws(VectorMismatch) -> JSONValue {
        guard let value = fields[key] else { throw VectorMismatch("missing field \(key)") }
        return value
    }

    /// A required hex byte string.
    package func bytes(_ key: String) throws(VectorMismatch) -> [UInt8] {
        try value(key).bytes(key)
    }

    /// A hex byte string, or `nil` when absent or null.
    package func optionalBytes(_ key: String) throws(VectorMismatch) -> [UInt8]? {
        has(key) ? try bytes(key) : nil
    }

    /// A required string.
    package func string(_ key: String) throws(VectorMismatch) -> String {
        guard case .string(let text) = try value(key) else { throw VectorMismatch("\(key) is not a string") }
        return text
    }

    /// A string, or `nil` when absent or null.
    package func optionalString(_ key: String) throws(VectorMismatch) -> String? {
        has(key) ? try string(key) : nil
    }

    /// A required integer.
    package func int(_ key: String) throws(VectorMismatch) -> Int {
        try value(key).int(key)
    }

    /// An integer, or `nil` when absent or null.
    package func optionalInt(_ key: String) throws(VectorMismatch) -> Int? {
        has(key) ? try int(key) : nil
    }

    /// A required boolean.
    package func bool(_ key: String) throws(VectorMismatch) -> Bool {
        guard case .bool(let flag) = try value(key) else { throw VectorMismatch("\(key) is not a boolean") }
        return flag
    }

    /// A boolean, or `nil` when absent or null.
    package func optionalBool(_ key: String) throws(VectorMismatch) -> Bool? {
        has(key) ? try bool(key) : nil
    }

    /// A nested object as a case-like accessor (for `session` parts), keeping this case's name.
    package func object(_ key: String) throws(VectorMismatch) -> VectorCase {
        guard case .object(var inner) = try value(key) else { throw VectorMismatch("\(key) is not an object") }
        inner["name"] = .string(name)
        inner["valid"] = .bool(true)
        return try VectorCase(.object(inner))
    }
}

extension JSONValue {
    /// This value as a hex byte string.
    package func bytes(_ what: String) throws(VectorMismatch) -> [UInt8] {
        guard case .string(let text) = self, let bytes = try? Hex.decode(text) else {
            throw VectorMismatch("\(what) is not a hex byte string")
        }
        return bytes
    }

    /// This value as an integer.
    package func int(_ what: String) throws(VectorMismatch) -> Int {
        guard case .number(let number) = self, number == number.rounded(), abs(number) < 9.0e15 else {
            throw VectorMismatch("\(what) is not an integer")
        }
        return Int(number)
    }
}
