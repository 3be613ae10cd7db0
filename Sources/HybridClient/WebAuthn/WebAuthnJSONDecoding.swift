import Foundation
import HybridCore

/// Shared decoding for the WebAuthn options JSON types: wrapper handling, base64url members and the
/// translation of Foundation's `DecodingError` into ``WebAuthnOptionsError``.
enum WebAuthnJSONDecoding {
    /// Decodes `T` from a JSON object, or from the `publicKey` member of a
    /// `{"publicKey": {…}}` wrapper (the shape of `CredentialCreationOptions` / `CredentialRequestOptions`).
    static func decode<T: Decodable>(_ type: T.Type, from json: Data) throws(WebAuthnOptionsError) -> T {
        let top: Any
        do {
            top = try JSONSerialization.jsonObject(with: json, options: [.fragmentsAllowed])
        } catch {
            throw .malformedJSON
        }
        guard let object = top as? [String: Any] else { throw .notAnObject }
        do {
            if object["publicKey"] != nil, object["challenge"] == nil {
                guard object["publicKey"] is [String: Any] else { throw WebAuthnOptionsError.notAnObject }
                return try JSONDecoder().decode(Wrapper<T>.self, from: json).publicKey
            }
            return try JSONDecoder().decode(T.self, from: json)
        } catch let error as WebAuthnOptionsError {
            throw error
        } catch let error as DecodingError {
            throw translate(error)
        } catch {
            throw .malformedJSON
        }
    }

    private struct Wrapper<T: Decodable>: Decodable {
        var publicKey: T
    }

    /// Maps Foundation's decoding error onto ours, keeping the JSON path.
    static func translate(_ error: DecodingError) -> WebAuthnOptionsError {
        switch error {
        case .keyNotFound(let key, let context):
            return .missingField(path(context.codingPath + [key]))
        case .valueNotFound(_, let context):
            return .missingField(path(context.codingPath))
        case .typeMismatch(_, let context):
            return .wrongType(path(context.codingPath))
        case .dataCorrupted(let context):
            // Foundation reports numbers that do not fit the requested integer type this way.
            return context.codingPath.isEmpty ? .malformedJSON : .valueOutOfRange(path(context.codingPath))
        @unknown default:
            return .malformedJSON
        }
    }

    /// Decodes a base64url member (``Base64URL`` of the core). Correct trailing `=` padding is
    /// tolerated, since some relying-party libraries write it; anything else must be canonical.
    static func base64URL(_ text: String) -> [UInt8]? {
        var body = Substring(text)
        while body.hasSuffix("=") { body.removeLast() }
        let padding = text.utf8.count - body.utf8.count
        if padding > 0, padding > 2 || text.utf8.count % 4 != 0 { return nil }
        return Base64URL.decode(body)
    }

    /// Renders a coding path as `a.b[2].c`.
    static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue, key.stringValue.hasPrefix("Index ") || key.stringValue == "\(index)" {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }
}

/// A coding key for arbitrary member names (used to list extension identifiers).
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) {
        self.stringValue = "\(intValue)"
        self.intValue = intValue
    }
}

extension KeyedDecodingContainer {
    /// Decodes a required base64url string member.
    func decodeBase64URL(forKey key: Key) throws -> [UInt8] {
        let text = try decode(String.self, forKey: key)
        guard let bytes = WebAuthnJSONDecoding.base64URL(text) else {
            throw WebAuthnOptionsError.invalidBase64URL(WebAuthnJSONDecoding.path(codingPath + [key]))
        }
        return bytes
    }

    /// Decodes an optional member that WebAuthn types as a `DOMString` enumeration: unknown values are
    /// ignored (treated as absent), as WebAuthn L3 requires of clients.
    func decodeLenientEnum<E: RawRepresentable>(_ type: E.Type, forKey key: Key) throws -> E?
    where E.RawValue == String {
        guard let text = try decodeIfPresent(String.self, forKey: key) else { return nil }
        return E(rawValue: text)
    }

    /// Decodes an optional array of `DOMString` enumeration values, dropping unknown ones.
    func decodeLenientEnumArray<E: RawRepresentable>(_ type: E.Type, forKey key: Key) throws -> [E]
    where E.RawValue == String {
        guard let texts = try decodeIfPresent([String].self, forKey: key) else { return [] }
        return texts.compactMap(E.init(rawValue:))
    }

    /// Decodes an optional WebIDL `unsigned long` (e.g. `timeout`): a JSON number that is a whole
    /// number from 0 to 2³² − 1. Other numbers are ``WebAuthnOptionsError/valueOutOfRange(_:)``.
    func decodeUnsignedLongIfPresent(forKey key: Key) throws -> UInt32? {
        guard let number = try decodeIfPresent(Double.self, forKey: key) else { return nil }
        guard number.isFinite, number >= 0, number <= Double(UInt32.max), number.rounded() == number else {
            throw WebAuthnOptionsError.valueOutOfRange(WebAuthnJSONDecoding.path(codingPath + [key]))
        }
        return UInt32(number)
    }

    /// Decodes a required WebIDL `long` (e.g. a COSE algorithm identifier): a JSON number that is a
    /// whole number from −2³¹ to 2³¹ − 1. Other numbers are ``WebAuthnOptionsError/valueOutOfRange(_:)``.
    func decodeLong(forKey key: Key) throws -> Int32 {
        let number = try decode(Double.self, forKey: key)
        guard number.isFinite, number >= Double(Int32.min), number <= Double(Int32.max), number.rounded() == number
        else {
            throw WebAuthnOptionsError.valueOutOfRange(WebAuthnJSONDecoding.path(codingPath + [key]))
        }
        return Int32(number)
    }

    /// The member names of an optional object member (its values are not examined).
    func decodeMemberNames(forKey key: Key) throws -> [String] {
        guard contains(key), try !decodeNil(forKey: key) else { return [] }
        let object = try nestedContainer(keyedBy: AnyCodingKey.self, forKey: key)
        return object.allKeys.map(\.stringValue).sorted()
    }
}
