import HybridCore

/// What is wrong with one JSON request (message type 03) a client under test sent, by the three
/// `phone.dc.*` checks that judge its bytes (protocol.md §7.8). Sans-IO: ``init(judging:hint:)``
/// reads the payload after the type byte.
///
/// The expected shape is Chromium's `RequestToJSONBytes`
/// (`content/browser/webid/digital_credentials/cross_device_request_dispatcher.cc`): an object of
/// exactly `origin` (the page's serialized origin), `requestType` (`credential.get` for a
/// presentation, `credential.create` for issuance) and `request`, whose one member `digital` is
/// what the page passed: `{"requests": [{"protocol": string, "data": object or string}, …]}`.
/// Chromium writes it with `base::WriteJson`, whose form ``JSONNode/encoded`` writes.
package struct DigitalCredentialRequestConduct: Sendable, Equatable {
    /// The deepest nesting the judge reads, as Chromium's `base::JSONReader` does
    /// (`kAbsoluteMaxDepth`, `base/json/json_common.h`); deeper documents fail `phone.dc.json`.
    static let readableDepth = 200

    /// Why the bytes are not one RFC 8259 JSON document within the tunnel's size and
    /// ``readableDepth``, or `nil`.
    package var json: String?
    /// Why a JSON document exceeds what our phone accepts (``DigitalCredentialEnvelopeLimits``'s 32
    /// levels, a member name given twice), or `nil`: advice, since RFC 8259 allows both.
    package var bounds: String?
    /// Every way the document departs from the envelope (empty if it conforms or is not JSON).
    package var envelope: [String] = []
    /// How the bytes differ from `base::WriteJson`'s form of the same document, or `nil`.
    package var canonical: String?
    /// A short description for the report: the origin, requestType and protocols, if readable.
    package var summary = "JSON request"

    /// Judges `payload`, the JSON after the type byte, for a QR code whose key 5 was `hint`.
    package init(judging payload: [UInt8], hint: HybridRequestType?) {
        let document: JSONNode
        do {
            document = try JSONNode(parsing: payload)
        } catch let strict {
            // Our phone's bounds refused it; RFC 8259 may still call it JSON.
            do {
                document = try JSONNode(
                    parsing: payload, maxDepth: Self.readableDepth, refusingDuplicateNames: false)
            } catch {
                json = "\(error)"
                summary = "JSON request (\(payload.count) bytes, unreadable)"
                return
            }
            bounds =
                if case .tooDeep(let limit) = strict {
                    "nests deeper than \(limit) levels, which our phone refuses"
                } else {
                    "names a member twice (\(strict)), which our phone refuses (RFC 8259 §4: names SHOULD be unique)"
                }
        }
        if document.encoded != payload {
            canonical = Self.firstDifference(payload, document.encoded)
        }
        envelope = Self.envelopeProblems(document, hint: hint)
        let origin = document[member: "origin"]?.stringValue ?? "?"
        let type = document[member: "requestType"]?.stringValue ?? "?"
        let protocols =
            document[member: "request"]?[member: "digital"]?[member: "requests"]?.arrayValue?
            .compactMap { $0[member: "protocol"]?.stringValue } ?? []
        summary = "\(type) from \(origin) for [\(protocols.joined(separator: ", "))] (\(payload.count) bytes)"
    }

    private static func envelopeProblems(_ top: JSONNode, hint: HybridRequestType?) -> [String] {
        guard case .object(let members) = top else { return ["the document is not an object"] }
        var problems = memberProblems(members, expected: ["origin", "request", "requestType"], at: "the envelope")
        if let origin = members["origin"] {
            if let text = origin.stringValue {
                if let problem = originProblem(text) { problems.append("origin \"\(text)\" \(problem)") }
            } else {
                problems.append("origin is not a string")
            }
        }
        if let type = members["requestType"] {
            let expected = hint == .digitalCredentialIssuance ? "credential.create" : "credential.get"
            if let text = type.stringValue {
                if text != expected {
                    problems.append(
                        "requestType \"\(text)\", expected \"\(expected)\" for QR hint \(hint?.hint ?? "none")")
                }
            } else {
                problems.append("requestType is not a string")
            }
        }
        if let request = members["request"] {
            guard case .object(let requestMembers) = request else { return problems + ["request is not an object"] }
            problems += memberProblems(requestMembers, expected: ["digital"], at: "request")
            if let digital = requestMembers["digital"] { problems += digitalProblems(digital) }
        }
        return problems
    }

    private static func digitalProblems(_ digital: JSONNode) -> [String] {
        guard digital.isObject else { return ["request.digital is not an object"] }
        guard let list = digital[member: "requests"] else { return ["request.digital lacks requests"] }
        guard let entries = list.arrayValue else { return ["request.digital.requests is not an array"] }
        guard !entries.isEmpty else { return ["request.digital.requests is empty"] }
        var problems: [String] = []
        for (index, entry) in entries.enumerated() {
            let at = "request.digital.requests[\(index)]"
            guard entry.isObject else {
                problems.append("\(at) is not an object")
                continue
            }
            if entry[member: "protocol"]?.stringValue == nil { problems.append("\(at).protocol is not a string") }
            guard let data = entry[member: "data"] else {
                problems.append("\(at) lacks data")
                continue
            }
            if !data.isObject && data.stringValue == nil { problems.append("\(at).data is neither object nor string") }
        }
        return problems
    }

    private static func memberProblems(_ members: [String: JSONNode], expected: Set<String>, at place: String)
        -> [String]
    {
        var problems: [String] = []
        let missing = expected.subtracting(members.keys).sorted()
        let extra = Set(members.keys).subtracting(expected).sorted()
        if !missing.isEmpty { problems.append("\(place) lacks \(missing.joined(separator: ", "))") }
        if !extra.isEmpty {
            problems.append("\(place) has members Chromium does not send: \(extra.joined(separator: ", "))")
        }
        return problems
    }

    /// Why `text` is not an origin as `url::Origin::Serialize` writes a tuple origin
    /// (`scheme://host[:port]`, lower case, no default port, no path), or `nil`.
    static func originProblem(_ text: String) -> String? {
        guard let separator = text.range(of: "://") else { return "has no scheme://" }
        let scheme = text[..<separator.lowerBound]
        let rest = text[separator.upperBound...]
        guard let first = scheme.first, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || "+-.".contains($0)) })
        else { return "has a scheme that is not lower-case ASCII" }
        guard !rest.isEmpty else { return "has no host" }
        if rest.contains(where: { "/?#@".contains($0) }) { return "has a path, query, fragment or user info" }
        if rest.contains(where: { $0.isUppercase }) { return "has upper-case letters in its host" }
        let hostAndPort = rest.split(separator: ":", omittingEmptySubsequences: false)
        if hostAndPort.count > 1, !rest.hasPrefix("[") {
            guard hostAndPort.count == 2, let port = Int(hostAndPort[1]), port > 0, port < 65536,
                String(port) == hostAndPort[1]
            else { return "has an invalid port" }
            if (scheme == "https" && port == 443) || (scheme == "http" && port == 80) {
                return "names its scheme's default port"
            }
        }
        return nil
    }

    private static func firstDifference(_ sent: [UInt8], _ expected: [UInt8]) -> String {
        let index =
            sent.indices.first { $0 < expected.count && sent[$0] != expected[$0] } ?? min(sent.count, expected.count)
        func around(_ bytes: [UInt8]) -> String {
            String(decoding: bytes[index..<min(bytes.count, index + 16)], as: UTF8.self)
        }
        return "differs at byte \(index): sent \"\(around(sent))…\", base::WriteJson writes \"\(around(expected))…\""
    }
}
