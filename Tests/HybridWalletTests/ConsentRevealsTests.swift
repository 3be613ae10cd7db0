import Crypto
import Foundation
import HybridCore
import TestChildProcess
import Testing

@testable import HybridWallet

/// The consent lists what the presentation reveals: the test decodes the presentation on its own
/// (Foundation's JSON, SHA-256 from swift-crypto, RFC 9901 §7.1 written out here; for mdoc Python
/// `cbor2` on the DeviceResponse) and compares what a verifier reads there with the names the user
/// was shown.
@Suite struct ConsentRevealsTests {
    static let origin = "https://example.com"

    /// An SD-JWT VC PID whose issuer left claims plain: `given_name` in the payload, `country` in
    /// the `address` disclosure beside its selectively disclosable `street_address` and `locality`.
    static func pid(boundTo key: DeviceKey) -> String {
        let street = TestCredentials.disclosure(#"["s1", "street_address", "Heidestraße 17"]"#)
        let locality = TestCredentials.disclosure(#"["s2", "locality", "Köln"]"#)
        let address = TestCredentials.disclosure(
            #"["s3", "address", {"country": "DE", "_sd": [""# + Disclosure.digest(of: street) + #"", ""#
                + Disclosure.digest(of: locality) + #""]}]"#)
        let birth = TestCredentials.disclosure(#"["s4", "birthdate", "1964-08-12"]"#)
        let payload = JSONItem.object([
            "iss": "https://issuer.example", "vct": "urn:eudi:pid:1", "_sd_alg": "sha-256",
            "exp": .integer(1_900_000_000), "cnf": .object(["jwk": key.publicJWK.json]),
            "given_name": "Erika",
            "_sd": .array([address, birth].map { .string(Disclosure.digest(of: $0)) }),
        ])
        let jwt = ES256.compactJWS(
            header: .object(["alg": "ES256", "typ": "dc+sd-jwt"]), payload: payload, key: P256.Signing.PrivateKey())
        return [jwt, address, street, locality, birth].joined(separator: "~") + "~"
    }

    /// What a verifier reads in an SD-JWT presentation (`<JWT>~<D>…~<KB-JWT>`), as claims paths
    /// named the way the consent names them; registered claims (RFC 7519 §4.1, SD-JWT VC §3.2.2)
    /// count as one each.
    static func revealedNames(_ presentation: String) throws -> Set<String> {
        let parts = presentation.split(separator: "~", omittingEmptySubsequences: false).map(String.init)
        let jwt = parts[0].split(separator: ".").map(String.init)
        func json(_ base64url: String) throws -> Any {
            var text = base64url.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            text += String(repeating: "=", count: (4 - text.count % 4) % 4)
            return try JSONSerialization.jsonObject(
                with: try #require(Data(base64Encoded: text)), options: [.fragmentsAllowed])
        }
        var byDigest: [String: [Any]] = [:]
        for disclosure in parts[1..<(parts.count - 1)] {
            let digest = Data(SHA256.hash(data: Data(disclosure.utf8))).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            byDigest[digest] = try #require(try json(disclosure) as? [Any])
        }
        func resolve(_ value: Any) -> Any? {
            if let object = value as? [String: Any] {
                if object.count == 1, let digest = object["..."] as? String {
                    return byDigest[digest].flatMap { $0.count == 2 ? resolve($0[1]) : nil }
                }
                var out: [String: Any] = [:]
                for (key, member) in object where key != "_sd" && key != "_sd_alg" { out[key] = resolve(member) }
                for digest in object["_sd"] as? [String] ?? [] {
                    if let disclosure = byDigest[digest], disclosure.count == 3, let name = disclosure[1] as? String {
                        out[name] = resolve(disclosure[2])
                    }
                }
                return out
            }
            if let array = value as? [Any] { return array.compactMap(resolve) }
            return value
        }
        let registered = [
            "iss": "issuer", "iat": "date of issue", "nbf": "start of validity", "exp": "expiry date",
            "cnf": "device key", "vct": "credential type", "vct#integrity": "credential type digest",
            "status": "status list entry",
        ]
        var names: Set<String> = []
        func leaves(_ value: Any, _ path: [ClaimsPathComponent]) {
            if let object = value as? [String: Any] {
                for (key, member) in object { leaves(member, path + [.key(key)]) }
            } else if let array = value as? [Any] {
                for (index, element) in array.enumerated() { leaves(element, path + [.index(index)]) }
            } else {
                names.insert(ConsentRequest.claimName(path))
            }
        }
        let view = try #require(resolve(try json(jwt[1])) as? [String: Any])
        for (key, value) in view {
            if let name = registered[key] { names.insert(name) } else { leaves(value, [.key(key)]) }
        }
        return names
    }

    static func request(_ claims: String) -> [UInt8] { SDJWTPresentationTests.request(claims) }

    @Test(arguments: [
        // A nested claim: its parent's disclosure brings the plain `country` too.
        #"[{"path": ["address", "street_address"]}]"#,
        // A whole object: every member, disclosed or not.
        #"[{"path": ["address"]}]"#,
        // A claim beside the issuer's plain ones.
        #"[{"path": ["birthdate"]}]"#,
    ])
    func theConsentListsEverySDJWTClaimSent(claims: String) throws {
        let key = try TestCredentials.isoDeviceKey()
        let prepared = try WalletPresenter.prepare(
            requestData: Self.request(claims), origin: Self.origin,
            credentials: [TestCredentials.stored(Self.pid(boundTo: key))])
        let presentation = try SDJWTPresentationTests.presentation(
            try WalletPresenter.respond(to: prepared, deviceKey: key, now: Date(timeIntervalSince1970: 1_767_225_600)))
        let shown = try #require(prepared.consent.items.first).claimNames
        #expect(Set(shown) == (try Self.revealedNames(presentation)), "shown: \(shown)")
        #expect(shown.count == Set(shown).count, "each once")
    }

    /// The element identifiers in a base64url DeviceResponse's `issuerSigned.nameSpaces`, as
    /// Python `cbor2` reads them (ISO/IEC 18013-5 §8.3.2.1.2.2: each item a tag-24 IssuerSignedItem).
    static func releasedElements(_ base64url: String) async throws -> [String] {
        let script = """
            import base64, cbor2, sys
            text = sys.stdin.read().strip()
            response = cbor2.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
            for document in response["documents"]:
                for items in document["issuerSigned"]["nameSpaces"].values():
                    for item in items:
                        print(cbor2.loads(item.value)["elementIdentifier"])
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        let output = try await ChildProcess.run(process, input: Data(base64url.utf8))
        try #require(output.status == 0, "python3 with cbor2 (scripts/setup.sh installs python3-cbor2)")
        let text = String(decoding: output.stdout, as: UTF8.self)
        return text.split(separator: "\n").map(String.init)
    }

    /// The mdoc's released elements, read from the DeviceResponse by Python `cbor2`, are the claims
    /// shown, beside what its `issuerAuth` always carries.
    @Test func theConsentListsTheMdocElementsSent() async throws {
        let key = try TestCredentials.isoDeviceKey()
        let prepared = try WalletPresenter.prepare(
            requestData: Array(
                #"{"response_type": "vp_token", "response_mode": "dc_api", "nonce": "n", "dcql_query": {"credentials": [{"id": "mdl", "format": "mso_mdoc", "meta": {"doctype_value": "org.iso.18013.5.1.mDL"}, "claims": [{"path": ["org.iso.18013.5.1", "family_name"]}]}]}}"#
                    .utf8),
            origin: Self.origin, credentials: [try TestCredentials.isoMdoc()])
        let response = try JSONItem.parse(
            try WalletPresenter.respond(to: prepared, deviceKey: key, now: Date()), limit: 1 << 20)
        let encoded = try #require(response["vp_token"]?["mdl"]?.arrayValue?.first?.stringValue)
        let released = try await Self.releasedElements(encoded).map {
            ConsentRequest.claimName([.key("org.iso.18013.5.1"), .key($0)])
        }
        let shown = try #require(prepared.consent.items.first).claimNames
        #expect(released == ["family name"])
        #expect(shown == released + ["issuer", "validity", "device key"], "shown: \(shown)")
    }
}
