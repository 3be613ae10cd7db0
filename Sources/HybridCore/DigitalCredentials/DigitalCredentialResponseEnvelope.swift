/// The phone's JSON answer to a ``DigitalCredentialRequestEnvelope`` (message type 03,
/// protocol.md §7.8).
///
/// `{"response": {"digital": {"data": {"protocol": …, "data": {…}}}}}` for a credential, or
/// `{"response": {"digital": {"error": "…"}}}`: what Chromium's `RequestDispatcher::OnComplete` in
/// `content/browser/webid/digital_credentials/cross_device_request_dispatcher.cc` reads.
package enum DigitalCredentialResponseEnvelope: Hashable, Sendable {
    /// A presentation: the protocol it answers (`nil` in the legacy shape, where `data` is the
    /// wallet's data itself) and the response data as compact UTF-8 JSON.
    case credential(protocolID: String?, data: [UInt8])
    /// The phone's error string: Chromium knows `USER_CANCELED`, `DEVICE_ABORTED` and
    /// `NO_CREDENTIAL` and reads any other string as "other".
    case error(String)

    /// The error this phone sends for every refusal (declined, nothing matching, an unsupported
    /// protocol, a malformed request): one answer, so that it says nothing about which credentials
    /// the phone holds. Chromium turns it into the same page-visible error as `NO_CREDENTIAL`
    /// (a `NetworkError` DOMException).
    package static let refusal = DigitalCredentialResponseEnvelope.error("USER_CANCELED")

    /// The bytes to send. A credential's `data` must be one JSON document (the wallet's response,
    /// for OpenID4VP an object with `vp_token`).
    ///
    /// - Throws: ``DigitalCredentialEnvelopeError`` if `data` is not bounded JSON.
    package func encoded() throws(DigitalCredentialEnvelopeError) -> [UInt8] {
        let digital: JSONNode
        switch self {
        case .credential(let protocolID, let data):
            let walletData = try JSONNode(parsing: data)
            var members = ["data": walletData]
            members["protocol"] = protocolID.map { .string($0) }
            digital = .object(["data": .object(members)])
        case .error(let code):
            digital = .object(["error": .string(code)])
        }
        let bytes = JSONNode.object(["response": .object(["digital": digital])]).encoded
        guard bytes.count <= DigitalCredentialEnvelopeLimits.maxBytes else {
            throw .tooLarge(size: bytes.count, limit: DigitalCredentialEnvelopeLimits.maxBytes)
        }
        return bytes
    }

    /// Reads a phone's answer as Chromium does, strictly bounded: an object `response` with an
    /// object `digital`; a string `error` wins; otherwise `data` must be present: an object with a
    /// `data` member is the standard shape (`protocol` read if it is a string), anything else is
    /// the legacy shape (the whole `data` is the wallet's data).
    ///
    /// - Throws: ``DigitalCredentialEnvelopeError``.
    package init(decoding bytes: some Collection<UInt8>) throws(DigitalCredentialEnvelopeError) {
        let top = try JSONNode(parsing: bytes)
        guard top.isObject else { throw .wrongType(path: "(top level)") }
        guard let response = top[member: "response"] else { throw .missingMember(path: "response") }
        guard response.isObject else { throw .wrongType(path: "response") }
        guard let digital = response[member: "digital"] else { throw .missingMember(path: "response.digital") }
        guard digital.isObject else { throw .wrongType(path: "response.digital") }
        if let error = digital[member: "error"] {
            guard let code = error.stringValue else { throw .wrongType(path: "response.digital.error") }
            self = .error(code)
            return
        }
        guard let data = digital[member: "data"] else { throw .missingMember(path: "response.digital.data") }
        if let walletData = data[member: "data"] {
            self = .credential(protocolID: data[member: "protocol"]?.stringValue, data: walletData.encoded)
        } else {
            self = .credential(protocolID: nil, data: data.encoded)
        }
    }
}
