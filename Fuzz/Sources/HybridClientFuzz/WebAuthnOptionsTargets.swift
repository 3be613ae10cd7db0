import Foundation
import FuzzDriver
import HybridCTAP
@_spi(Fuzzing) import HybridClient
import HybridCore

/// The WebAuthn options JSON that `hybrid-client` reads (`--options FILE`), for `create()` and `get()`.
///
/// Parsing gives a value or a typed ``WebAuthnOptionsError`` (`throws(…)`), so "no trap" already
/// means one of the two. Two oracles on what parses:
/// - **re-parse:** the value written back as JSON (``OptionsJSONWriter``) parses to the same value;
/// - **the phone's view:** the ceremony built from it (origin `https://<rp id>`) sends a CTAP request
///   that the phone's parser (`CTAPRequest(bytes:)`) reads back as the same request.
enum WebAuthnOptionsTargets {
    static func creationOptions(_ input: [UInt8]) {
        guard let options = try? PublicKeyCredentialCreationOptionsJSON(json: Data(input)) else { return }
        let written = OptionsJSONWriter.json(options)
        check((try? PublicKeyCredentialCreationOptionsJSON(json: written)) == options, "creation options re-parse")
        guard let origin = origin(for: options.rp.id),
            let ceremony = try? RegistrationCeremony(options: options, origin: origin),
            let request = try? ceremony.makeCredentialRequest()
        else { return }
        check(
            (try? CTAPRequest(bytes: request.encoded)) == .makeCredential(request),
            "makeCredential as the phone reads it")
    }

    static func requestOptions(_ input: [UInt8]) {
        guard let options = try? PublicKeyCredentialRequestOptionsJSON(json: Data(input)) else { return }
        let written = OptionsJSONWriter.json(options)
        check((try? PublicKeyCredentialRequestOptionsJSON(json: written)) == options, "request options re-parse")
        guard let origin = origin(for: options.rpId),
            let ceremony = try? AuthenticationCeremony(options: options, origin: origin)
        else { return }
        let request = ceremony.getAssertionRequest()
        check(
            (try? CTAPRequest(bytes: request.encoded)) == .getAssertion(request), "getAssertion as the phone reads it")
    }

    /// The origin a page of the RP would have: `https://<rp id>` (or example.com when absent).
    private static func origin(for rpID: String?) -> WebOrigin? {
        try? WebOrigin("https://" + (rpID ?? "example.com"))
    }
}

/// Writes parsed options back as WebAuthn JSON (what `PublicKeyCredential.toJSON`-style encoders
/// produce): every member the parser keeps, in its JSON form. Only the fuzz oracle uses it.
enum OptionsJSONWriter {
    static func json(_ options: PublicKeyCredentialCreationOptionsJSON) -> Data {
        var rp: [String: Any] = ["name": options.rp.name]
        if let id = options.rp.id { rp["id"] = id }
        var object: [String: Any] = [
            "rp": rp,
            "user": ["id": b64(options.user.id), "name": options.user.name, "displayName": options.user.displayName],
            "challenge": b64(options.challenge),
            "pubKeyCredParams": options.pubKeyCredParams.map { ["type": $0.type, "alg": $0.alg] },
            "excludeCredentials": options.excludeCredentials.map(descriptor),
            "authenticatorSelection": selection(options.authenticatorSelection),
            "attestation": options.attestation.rawValue,
            "hints": options.hints.map(\.rawValue),
        ]
        if let timeout = options.timeout { object["timeout"] = timeout }
        let inputs = options.extensions
        var extensions = ignored(options.ignoredExtensions)
        if let prf = inputs.prf { extensions["prf"] = self.prf(prf) }
        if inputs.credProps { extensions["credProps"] = true }
        if let largeBlob = inputs.largeBlob { extensions["largeBlob"] = ["support": largeBlob.rawValue] }
        if let policy = inputs.credentialProtectionPolicy {
            extensions["credentialProtectionPolicy"] = policy.webAuthnName
        }
        if inputs.enforceCredentialProtectionPolicy { extensions["enforceCredentialProtectionPolicy"] = true }
        object["extensions"] = extensions
        return serialize(object)
    }

    static func json(_ options: PublicKeyCredentialRequestOptionsJSON) -> Data {
        var object: [String: Any] = [
            "challenge": b64(options.challenge),
            "allowCredentials": options.allowCredentials.map(descriptor),
            "userVerification": options.userVerification.rawValue,
            "hints": options.hints.map(\.rawValue),
        ]
        if let timeout = options.timeout { object["timeout"] = timeout }
        if let rpID = options.rpId { object["rpId"] = rpID }
        let inputs = options.extensions
        var extensions = ignored(options.ignoredExtensions)
        if let prf = inputs.prf { extensions["prf"] = self.prf(prf) }
        if inputs.largeBlobRead { extensions["largeBlob"] = ["read": true] }
        if let blob = inputs.largeBlobWrite { extensions["largeBlob"] = ["write": b64(blob)] }
        object["extensions"] = extensions
        return serialize(object)
    }

    /// base64url without padding (RFC 4648 §5), written with Foundation rather than HybridCore's
    /// (package) encoder, so the JSON the parser reads is not built by the code under test.
    private static func b64(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    private static func descriptor(_ descriptor: PublicKeyCredentialDescriptorJSON) -> [String: Any] {
        ["type": descriptor.type, "id": b64(descriptor.id), "transports": descriptor.transports.map(\.rawValue)]
    }

    private static func selection(_ selection: AuthenticatorSelectionCriteria) -> [String: Any] {
        var object: [String: Any] = [
            "requireResidentKey": selection.requireResidentKey, "userVerification": selection.userVerification.rawValue,
        ]
        if let attachment = selection.authenticatorAttachment {
            object["authenticatorAttachment"] = attachment.rawValue
        }
        if let residentKey = selection.residentKey { object["residentKey"] = residentKey.rawValue }
        return object
    }

    private static func prf(_ inputs: PRFInputs) -> [String: Any] {
        func values(_ values: PRFValues) -> [String: Any] {
            var object: [String: Any] = ["first": b64(values.first)]
            if let second = values.second { object["second"] = b64(second) }
            return object
        }
        var object: [String: Any] = [:]
        if let eval = inputs.eval { object["eval"] = values(eval) }
        if !inputs.evalByCredential.isEmpty {
            object["evalByCredential"] = Dictionary(
                uniqueKeysWithValues: inputs.evalByCredential.map { (b64($0.key), values($0.value)) })
        }
        return object
    }

    /// Extensions the client does not process keep only their names; any value will do.
    private static func ignored(_ names: [String]) -> [String: Any] {
        Dictionary(names.map { ($0, true as Any) }, uniquingKeysWith: { first, _ in first })
    }

    private static func serialize(_ object: [String: Any]) -> Data {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            check(false, "parsed options cannot be written as JSON")
            return Data()
        }
        return data
    }
}
