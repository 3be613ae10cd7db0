import Crypto
import Foundation
import HybridCore
import HybridWallet
import Testing

@testable import HybridAuthenticator

/// The wallet behind the digital-credential contract: consent, refusals that say nothing about
/// the wallet's contents, and the presentation. Credential: ISO/IEC 18013-5 Annex D's mdoc and
/// device key (Tests/Vectors/wallet/iso18013-5-annex-d.json).
@Suite struct WalletProviderTests {
    struct Source: IdentityCredentialSource {
        let contents: WalletContents
        func walletContents() async throws(PasskeyStoreError) -> WalletContents { contents }
    }

    actor Consent: UserInteraction {
        let answer: Bool
        var asked: [(String, [RequestedCredential])] = []
        init(answer: Bool) { self.answer = answer }
        func confirm(operation: UserOperation, rpID: String?, userName: String?) async -> Bool { false }
        func chooseAccount(rpID: String, accounts: [AccountChoice]) async -> Int? { nil }
        func verifyUser() async -> Bool { false }
        nonisolated var canVerifyUser: Bool { false }
        func confirmPresentation(origin: String, credentials: [RequestedCredential]) async -> Bool {
            asked.append((origin, credentials))
            return answer
        }
    }

    static func contents() throws -> WalletContents {
        let vector = try JSONItem.parse(
            Array(
                try Data(
                    contentsOf: URL(fileURLWithPath: AuthenticatorVectors.directory + "/wallet/iso18013-5-annex-d.json")
                )),
            limit: 1 << 20)
        let key = try P256.Signing.PrivateKey(
            rawRepresentation: try Hex.decode(vector["deviceKeyPrivate"]?.stringValue ?? ""))
        let mdoc = WalletCredential(
            id: "m1", format: .mdoc, bytes: try Hex.decode(vector["issuerSigned"]?.stringValue ?? ""),
            addedAt: Date(timeIntervalSince1970: 0))
        return WalletContents(deviceKey: DeviceKey(privateKey: key), credentials: [mdoc])
    }

    static func entry(doctype: String = "org.iso.18013.5.1.mDL", protocolID: String = "openid4vp-v1-unsigned")
        -> DigitalCredentialRequestEntry
    {
        DigitalCredentialRequestEntry(
            protocolID: protocolID,
            data: Array(
                (#"{"response_type": "vp_token", "response_mode": "dc_api", "nonce": "abc", "dcql_query": {"credentials": [{"id": "mdl", "format": "mso_mdoc", "meta": {"doctype_value": ""#
                    + doctype + #""}, "claims": [{"path": ["org.iso.18013.5.1", "family_name"]}]}]}}"#).utf8))
    }

    @Test func asksWithOriginAndClaimsThenPresents() async throws {
        let consent = Consent(answer: true)
        let provider = WalletProvider(source: Source(contents: try Self.contents()), interaction: consent)
        let outcome = await provider.present(origin: "https://example.com", entries: [Self.entry()])
        guard case .credential(let protocolID, let data) = outcome else {
            Issue.record("expected a credential, got \(outcome)")
            return
        }
        #expect(protocolID == "openid4vp-v1-unsigned")
        let response = try JSONItem.parse(data, limit: 1 << 20)
        #expect(response["vp_token"]?["mdl"]?.arrayValue?.count == 1)
        let asked = await consent.asked
        #expect(asked.count == 1)
        #expect(asked.first?.0 == "https://example.com")
        #expect(
            asked.first?.1 == [
                RequestedCredential(
                    name: "mobile driving licence", claims: ["family name", "issuer", "validity", "device key"])
            ])
    }

    /// A request whose `values` probe the claim ("is the family name Mustermann?").
    static func probe(familyName: String) -> DigitalCredentialRequestEntry {
        DigitalCredentialRequestEntry(
            protocolID: "openid4vp-v1-unsigned",
            data: Array(
                (#"{"response_type": "vp_token", "response_mode": "dc_api", "nonce": "abc", "dcql_query": {"credentials": [{"id": "mdl", "format": "mso_mdoc", "meta": {"doctype_value": "org.iso.18013.5.1.mDL"}, "claims": [{"path": ["org.iso.18013.5.1", "family_name"], "values": [""#
                    + familyName + #""]}]}]}}"#).utf8))
    }

    /// A request that matches nothing (another document type, or a `values` probe that misses)
    /// is refused only after the user has seen it, as one that matches and is declined: a
    /// verifier cannot tell from the time of the answer whether the phone holds a match.
    @Test func declinedAndNoMatchAreRefusalsAndNoMatchIsShownFirst() async throws {
        let source = Source(contents: try Self.contents())
        let declining = Consent(answer: false)
        #expect(
            await WalletProvider(source: source, interaction: declining).present(
                origin: "https://example.com", entries: [Self.entry()]) == .refused(.declined))
        for (entry, name) in [
            (Self.entry(doctype: "org.iso.7367.1.mVRC"), "org.iso.7367.1.mVRC"),
            (Self.probe(familyName: "Mustermann"), "mobile driving licence"),
        ] {
            let consent = Consent(answer: true)
            let provider = WalletProvider(source: source, interaction: consent)
            #expect(
                await provider.present(origin: "https://example.com", entries: [entry])
                    == .refused(.noMatchingCredential))
            let asked = await consent.asked
            #expect(asked.count == 1, "\(name): refused without the consent step")
            #expect(asked.first?.0 == "https://example.com")
            #expect(asked.first?.1.map(\.name) == [name])
            #expect(asked.first?.1.map(\.claims) == [["family name"]])
            #expect(asked.first?.1.map(\.available) == [false])
        }
        let consent = Consent(answer: true)
        let provider = WalletProvider(source: source, interaction: consent)
        #expect(
            await provider.present(origin: "https://example.com", entries: [Self.entry(protocolID: "org-iso-mdoc")])
                == .refused(.unsupportedProtocol))
        let malformed = DigitalCredentialRequestEntry(protocolID: "openid4vp-v1-unsigned", data: Array("{}".utf8))
        guard
            case .refused(.malformedRequest) = await provider.present(
                origin: "https://example.com", entries: [malformed])
        else {
            Issue.record("a malformed request is not refused as malformed")
            return
        }
    }
}
