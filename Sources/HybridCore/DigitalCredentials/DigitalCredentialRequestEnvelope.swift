/// The one JSON request of a digital-credential session: what the client sends as message type 03
/// (protocol.md §7.8, CTAP 2.3 hybrid JSON messages).
///
/// `{"origin": …, "requestType": "credential.get", "request": {"digital": {"requests": [{"protocol":
/// …, "data": {…}}]}}}`: Chromium's `RequestToJSONBytes` in
/// `content/browser/webid/digital_credentials/cross_device_request_dispatcher.cc`, where `digital`
/// is what the page passed to `navigator.credentials.get({digital})` (W3C Digital Credentials API).
package struct DigitalCredentialRequestEnvelope: Hashable, Sendable {
    /// The `requestType` of a presentation (`navigator.credentials.get`).
    package static let getRequestType = "credential.get"

    /// The verifier page's origin, serialized (`https://example.com`).
    package let origin: String
    /// `requestType`; always ``getRequestType`` for an envelope that decoded.
    package let requestType: String
    /// The `digital` member as sent.
    package let digital: JSONNode
    /// Its `requests`, in order: `protocol` and `data` as compact UTF-8 JSON (an object; a string
    /// in Chromium's legacy format).
    package var requests: [(protocolID: String, data: [UInt8])] {
        (try? Self.entries(of: digital)) ?? []
    }

    /// An envelope for `origin` carrying `digital` (`{"requests": [...]}`), checked as
    /// ``init(decoding:)`` checks it.
    ///
    /// - Throws: ``DigitalCredentialEnvelopeError`` if `digital` is not a valid request.
    package init(origin: String, digital: JSONNode) throws(DigitalCredentialEnvelopeError) {
        self.origin = origin
        self.requestType = Self.getRequestType
        _ = try Self.entries(of: digital)
        self.digital = digital
    }

    /// Reads a client's message strictly: bounded JSON (``DigitalCredentialEnvelopeLimits``), an
    /// object with string `origin`, `requestType` `credential.get`, object `request` whose object
    /// `digital` has a non-empty `requests` array of objects with a string `protocol` and an object
    /// or string `data`. Other members are ignored.
    ///
    /// - Throws: ``DigitalCredentialEnvelopeError``.
    package init(decoding bytes: some Collection<UInt8>) throws(DigitalCredentialEnvelopeError) {
        let top = try JSONNode(parsing: bytes)
        guard top.isObject else { throw .wrongType(path: "(top level)") }
        guard let originNode = top[member: "origin"] else { throw .missingMember(path: "origin") }
        guard let origin = originNode.stringValue else { throw .wrongType(path: "origin") }
        guard let typeNode = top[member: "requestType"] else { throw .missingMember(path: "requestType") }
        guard let requestType = typeNode.stringValue else { throw .wrongType(path: "requestType") }
        guard requestType == Self.getRequestType else { throw .unsupportedRequestType(requestType) }
        guard let request = top[member: "request"] else { throw .missingMember(path: "request") }
        guard request.isObject else { throw .wrongType(path: "request") }
        guard let digital = request[member: "digital"] else { throw .missingMember(path: "request.digital") }
        self.origin = origin
        self.requestType = requestType
        _ = try Self.entries(of: digital, path: "request.digital")
        self.digital = digital
    }

    /// The bytes to send: compact, members sorted, as Chromium writes them.
    package var encoded: [UInt8] {
        JSONNode.object([
            "origin": .string(origin), "request": .object(["digital": digital]), "requestType": .string(requestType),
        ]).encoded
    }

    private static func entries(
        of digital: JSONNode, path: String = "digital"
    ) throws(DigitalCredentialEnvelopeError) -> [(protocolID: String, data: [UInt8])] {
        guard digital.isObject else { throw .wrongType(path: path) }
        guard let list = digital[member: "requests"] else { throw .missingMember(path: path + ".requests") }
        guard let elements = list.arrayValue else { throw .wrongType(path: path + ".requests") }
        guard !elements.isEmpty else { throw .noRequests }
        var entries: [(protocolID: String, data: [UInt8])] = []
        for (index, element) in elements.enumerated() {
            let at = "\(path).requests[\(index)]"
            guard element.isObject else { throw .wrongType(path: at) }
            guard let protocolNode = element[member: "protocol"] else { throw .missingMember(path: at + ".protocol") }
            guard let protocolID = protocolNode.stringValue else { throw .wrongType(path: at + ".protocol") }
            guard let data = element[member: "data"] else { throw .missingMember(path: at + ".data") }
            guard data.isObject || data.stringValue != nil else { throw .wrongType(path: at + ".data") }
            entries.append((protocolID, data.encoded))
        }
        return entries
    }
}
