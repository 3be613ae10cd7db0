import Crypto
import HybridConformance
import HybridCore
import TestSupport

/// A scripted hybrid client for fault tests, made of the core's pieces (the Noise initiator and
/// QR payload) with its own transport sealing, so that any byte can be changed: it talks to the
/// phone's real ``AuthenticatorSession`` in memory while a ``ClientConductJudge`` watches, exactly as
/// `hybrid-conformance phone` feeds it.
struct ScriptedClient {
    /// How the script deviates from a conforming client.
    struct Script {
        /// Changes msg1 before it is sent.
        var message1: ([UInt8]) -> [UInt8] = { $0 }
        /// Handshake under another identity key than the QR code names.
        var wrongIdentity = false
        /// The plaintexts to send after the post-handshake message, in order; `nil` = the reply.
        var messages: [[UInt8]?] = [ScriptedClient.makeCredential, nil, [0x00]]
        /// Pads a plaintext (default: the spec's padding).
        var pad: ([UInt8]) -> [UInt8] = ScriptedClient.pad
        /// The features the phone offers in its post-handshake message.
        var features: [HybridFeature] = [.ctap]
    }

    /// `03` + the JSON request Chromium's `RequestToJSONBytes` writes for a page on
    /// https://example.com asking for one SD-JWT VC claim (protocol.md §7.8): compact, members
    /// sorted by name.
    static let digitalCredential: [UInt8] = [0x03] + Array(digitalCredentialJSON.utf8)
    static let digitalCredentialJSON =
        #"{"origin":"https://example.com","request":{"digital":{"requests":[{"data":{"dcql_query":"#
        + #"{"credentials":[{"claims":[{"path":["age_equal_or_over","18"]}],"format":"dc+sd-jwt","id":"pid"}]},"#
        + #""nonce":"n-0S6_WzA2Mj","response_type":"vp_token"},"protocol":"openid4vp-v1-unsigned"}]}},"#
        + #""requestType":"credential.get"}"#

    /// `01` + makeCredential `01` + a canonical parameter map.
    static let makeCredential: [UInt8] =
        [0x01, 0x01]
        + CBOREncoder.encode(
            .map([
                CBORMapEntry(1, .bytes([UInt8](repeating: 0x11, count: 32))),
                CBORMapEntry(2, .map([CBORMapEntry(.text("id"), .text("example.com"))])),
                CBORMapEntry(
                    3, .map([CBORMapEntry(.text("id"), .bytes([1, 2, 3])), CBORMapEntry(.text("name"), .text("a"))])),
                CBORMapEntry(
                    4,
                    .array([
                        .map([CBORMapEntry(.text("alg"), .int(-7)), CBORMapEntry(.text("type"), .text("public-key"))])
                    ])),
            ]))

    /// The spec's padding, written independently of the core: zeros to the smallest multiple of 32
    /// above the length, then the count.
    static func pad(_ message: [UInt8]) -> [UInt8] {
        let zeros = 31 - message.count % 32
        return message + [UInt8](repeating: 0, count: zeros) + [UInt8(zeros)]
    }

    /// Runs one session of `script` against the phone; returns the judge's report.
    static func run(_ script: Script, hint: HybridRequestType? = .makeCredential) throws -> ConformanceReport {
        let identity = P256.KeyAgreement.PrivateKey()
        let secret = try require(QRSecret(bytes: (0..<16).map { _ in UInt8.random(in: 0...255) }))
        var phone = AuthenticatorSession(
            configuration: .init(
                qrSecret: secret, clientIdentityKey: identity.publicKey,
                domainID: try require(TunnelDomainID(rawValue: 0)),
                getInfo: [0xA0], features: script.features),
            advertNonce: try require(AdvertNonce(bytes: [UInt8](repeating: 7, count: 10))),
            ephemeralKey: P256.KeyAgreement.PrivateKey())
        var judge = ClientConductJudge(hint: hint, features: script.features)
        _ = try phone.start()
        guard
            case .startAdvertising(let serviceData) = try phone.tunnelOpened(
                routingID: try require(RoutingID(bytes: [1, 2, 3])))[0]
        else { throw TestFailure("no advert") }
        let advert = try require(secret.eidKey.trialDecrypt(serviceData))

        // What the phone does with one client message, as the live tap reports it.
        func deliver(_ message: [UInt8]) -> [AuthenticatorSession.Action] {
            do {
                let actions = try phone.messageReceived(message)
                judge.observe(message, paddedPlaintext: phone.lastClientPlaintext, accepted: true)
                return actions
            } catch {
                judge.observe(message, paddedPlaintext: phone.lastClientPlaintext, accepted: false)
                return []
            }
        }

        let initiator = HandshakeInitiator(
            pattern: .knpsk0(identityKey: script.wrongIdentity ? P256.KeyAgreement.PrivateKey() : identity),
            psk: secret.psk(eidPlaintext: advert), ephemeralKey: P256.KeyAgreement.PrivateKey())
        let answer = deliver(script.message1(initiator.makeMessage1()))
        // msg2 is the first message the phone sends back.
        let sent = answer.compactMap { action -> [UInt8]? in
            if case .send(let bytes) = action { bytes } else { nil }
        }
        guard let message2 = sent.first else {
            var report = ConformanceReport(mode: "phone", subject: "scripted client")
            judge.record(into: &report)
            return report
        }
        let writeKey = try initiator.processMessage2(message2).initiatorToResponderKey
        var sequence: UInt32 = 0
        for plaintext in script.messages {
            guard let plaintext else {
                // The phone answers the request it was given.
                let reply =
                    (try? phone.requestCompleted(.ctap([0x00, 0xA0])))
                    ?? (try? phone.requestCompleted(
                        .json(Array(#"{"response":{"digital":{"error":"NO_CREDENTIAL"}}}"#.utf8))))
                if let reply, !reply.isEmpty { judge.replySent() }
                continue
            }
            let nonce = [UInt8](repeating: 0, count: 8) + withUnsafeBytes(of: sequence.bigEndian, Array.init)
            let box = try AES.GCM.seal(script.pad(plaintext), using: writeKey, nonce: try AES.GCM.Nonce(data: nonce))
            sequence += 1
            _ = deliver(Array(box.ciphertext) + Array(box.tag))
        }
        var report = ConformanceReport(mode: "phone", subject: "scripted client")
        judge.record(into: &report)
        return report
    }

    private static func require<T>(_ value: T?) throws -> T {
        guard let value else { throw TestFailure("unexpected nil") }
        return value
    }
}
