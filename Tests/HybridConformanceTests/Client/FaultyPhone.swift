import Crypto
import HybridAuthenticator
import HybridBluetooth
import HybridCTAP
import HybridConformance
import HybridCore
import TestFakePhone

/// A phone for the client mode's fault tests: the shared ``FakePhone`` (``AuthenticatorSession``
/// and the real CTAP engine), with one deliberate fault injected into the bytes it sends. Test double only: the product has
/// no fault switches.
struct FaultyPhone: Sendable {
    /// How this phone breaks the protocol, and the check that must catch it.
    enum Fault: String, Sendable, CaseIterable {
        /// makeCredential authData names another RP (rpIdHash byte flipped).
        case wrongRPIDHash
        /// getAssertion authData without the UP flag.
        case userPresenceCleared
        /// getAssertion authData with AT set but no attested credential data.
        case attestedFlagWithoutData
        /// getAssertion signature with one byte changed.
        case badSignature
        /// makeCredential response map with its keys in descending order (not canonical).
        case nonCanonicalCBOR
        /// makeCredential counter far above the getAssertion one ("none" signs nothing).
        case counterBackwards
        /// makeCredential credential key whose y does not lie on P-256.
        case keyOffCurve
        /// "none" attestation with a non-empty attStmt.
        case badAttestationStatement
        /// getInfo without key 1 (versions).
        case getInfoWithoutVersions
        /// A post-handshake message without the "ctap" feature (key 3 = []).
        case postHandshakeWithoutCTAP
        /// "packed" x5c attestation whose signature is not by the certificate's key.
        case certificateAttestationWrongSigner
        /// Serves a QR code without a timestamp (key 3) instead of refusing it.
        case acceptsUndatedQRCode
        /// Signs a getAssertion with up = false without asking (UP clear), as a careless phone
        /// would.
        case signsSilently
        /// Appends the CTAP 2.3 suffix `{1: 128}` to its advert although the QR code did not offer L2CAP.
        case unrequestedAdvertSuffix
        /// Advertises a valid EID whose routing ID the relay never handed out, and opens no tunnel.
        case advertisesUnknownRoutingID

        /// The check ID that must fail.
        var caughtBy: String {
            switch self {
            case .wrongRPIDHash: "client.makecredential.rpid-hash"
            case .userPresenceCleared: "client.getassertion.flags"
            case .attestedFlagWithoutData: "client.getassertion.authdata"
            case .badSignature: "client.getassertion.signature"
            case .nonCanonicalCBOR: "client.makecredential.canonical-cbor"
            case .counterBackwards: "client.counter.monotonic"
            case .keyOffCurve: "client.makecredential.credential-key"
            case .badAttestationStatement: "client.makecredential.attestation"
            case .getInfoWithoutVersions: "client.getinfo.versions"
            case .postHandshakeWithoutCTAP: "client.post-handshake.well-formed"
            case .certificateAttestationWrongSigner: "client.makecredential.attestation"
            case .acceptsUndatedQRCode: "client.qr.undated-refused"
            case .signsSilently: "client.consent.silent-getassertion"
            case .unrequestedAdvertSuffix: "client.advert.suffix-only-when-asked"
            case .advertisesUnknownRoutingID: "client.advert.routes-to-tunnel"
            }
        }

        /// How ``caughtBy`` ends: `fail`, or `warn` for a check that is only advice (serving an
        /// undated code and signing with up = false are allowed by the rules, protocol.md §1.3, CTAP
        /// 2.3 §6.2).
        var outcome: CheckOutcome {
            switch self {
            case .acceptsUndatedQRCode, .signsSilently: .warn
            default: .fail
            }
        }
    }

    let engine: CTAPAuthenticator
    /// The fault, or `nil` for a conforming phone.
    let fault: Fault?
    /// Whether makeCredential answers with "packed" x5c attestation by ``AttestationCertificateFixture``.
    let certificateAttestation: Bool
    let relay: TunnelServerOrigin
    let air: SimulatedAir

    init(
        engine: CTAPAuthenticator, fault: Fault?, certificateAttestation: Bool = false, relay: TunnelServerOrigin,
        air: SimulatedAir
    ) {
        self.engine = engine
        self.fault = fault
        self.certificateAttestation = certificateAttestation || fault == .certificateAttestationWrongSigner
        self.relay = relay
        self.air = air
    }

    /// Serves one session for the QR code `qrURL` until the client shuts down or closes: the
    /// shared ``FakePhone`` with this phone's fault in what it says.
    func serve(qrURL: String) async throws {
        var phone = FakePhone(engine: engine, relay: relay, air: air)
        // A conforming phone refuses a code whose age it cannot check, as too old.
        phone.refusesUndatedQRCode = fault != .acceptsUndatedQRCode
        phone.getInfo = getInfo()
        phone.features = fault == .postHandshakeWithoutCTAP ? [] : [.ctap]
        if fault == .unrequestedAdvertSuffix {
            // The session appends a suffix only for a QR code that asked; pretend this one did.
            phone.qrChannels = [.cloudTunnel, .bleL2CAP]
            phone.l2capPSM = 0x0080
        }
        if fault == .advertisesUnknownRoutingID { phone.behaviour = .advertiseUnknownTunnel }
        phone.answer = { request in await inject(into: handle(request), request: request) }
        _ = try await phone.serve(qrURL: qrURL)
    }

    /// The engine's answer; with ``Fault/signsSilently`` a getAssertion with up = false is signed
    /// as one without options, and its UP flag cleared (no user was asked).
    private func handle(_ request: [UInt8]) async -> [UInt8] {
        guard fault == .signsSilently, request.first == CTAPCommand.getAssertion.rawValue,
            var entries = (try? CBORDecoder.decode(Array(request.dropFirst())))?.mapEntries,
            let options = entries.first(where: { $0.key == .int(5) })?.value,
            options[textKey: "up"]?.boolValue == false
        else { return await engine.handle(request) }
        entries.removeAll { $0.key == .int(5) }
        let response = await engine.handle([request[0]] + CBOREncoder.encode(.map(entries)))
        guard response.first == 0, var map = (try? CBORDecoder.decode(Array(response.dropFirst())))?.mapEntries,
            let index = map.firstIndex(where: { $0.key == .int(2) }), var authData = map[index].value.bytesValue,
            authData.count > 32
        else { return response }
        authData[32] &= ~0x01
        map[index] = CBORMapEntry(2, .bytes(authData))
        return [0] + CBOREncoder.encode(.map(map))
    }

    private func getInfo() -> [UInt8] {
        let encoded = engine.getInfo.encoded
        guard fault == .getInfoWithoutVersions, let map = try? CBORDecoder.decode(encoded), let entries = map.mapEntries
        else {
            return encoded
        }
        return CBOREncoder.encode(.map(entries.filter { $0.key != .int(1) }))
    }

    /// The engine's reply with this phone's fault applied (status byte + CBOR).
    private func inject(into response: [UInt8], request: [UInt8]) -> [UInt8] {
        let isRegistration = request.first == CTAPCommand.makeCredential.rawValue
        guard response.first == 0, var map = (try? CBORDecoder.decode(response.dropFirst()))?.mapEntries else {
            return response
        }
        func authData() -> [UInt8] { map.first { $0.key == .int(2) }?.value.bytesValue ?? [] }
        func setAuthData(_ bytes: [UInt8]) { set(2, .bytes(bytes)) }
        func set(_ key: Int64, _ value: CBORValue) {
            if let index = map.firstIndex(where: { $0.key == .int(key) }) { map[index].value = value }
        }
        if certificateAttestation, isRegistration,
            case .makeCredential(let parameters)? = try? CTAPRequest(bytes: request),
            let signer = try?
                (fault == .certificateAttestationWrongSigner
                ? P256.Signing.PrivateKey() : AttestationCertificateFixture.privateKey()),
            let signature = try? signer.signature(for: authData() + parameters.clientDataHash)
        {
            set(1, .text("packed"))
            set(
                3,
                .map([
                    CBORMapEntry(.text("alg"), .int(-7)),
                    CBORMapEntry(.text("sig"), .bytes(Array(signature.derRepresentation))),
                    CBORMapEntry(.text("x5c"), .array([.bytes(AttestationCertificateFixture.certificate)])),
                ]))
        }
        switch (fault, isRegistration) {
        case (.wrongRPIDHash, true):
            var bytes = authData()
            bytes[0] ^= 0x01
            setAuthData(bytes)
        case (.userPresenceCleared, false):
            var bytes = authData()
            bytes[32] &= ~0x01
            setAuthData(bytes)
        case (.attestedFlagWithoutData, false):
            var bytes = authData()
            bytes[32] |= 0x40
            setAuthData(bytes)
        case (.badSignature, false):
            if var signature = map.first(where: { $0.key == .int(3) })?.value.bytesValue {
                signature[signature.count - 1] ^= 0x01
                set(3, .bytes(signature))
            }
        case (.nonCanonicalCBOR, true):
            // Keys 3, 2, 1: each entry canonical, the order not.
            var bytes: [UInt8] = [0x00, 0xA0 | UInt8(map.count)]
            for entry in map.reversed() { bytes += CBOREncoder.encode(entry.key) + CBOREncoder.encode(entry.value) }
            return bytes
        case (.counterBackwards, true):
            var bytes = authData()
            bytes.replaceSubrange(33..<37, with: [0x7F, 0xFF, 0xFF, 0xFF])
            setAuthData(bytes)
        case (.keyOffCurve, true):
            guard var data = try? AuthenticatorData(bytes: authData()), var attested = data.attestedCredentialData,
                var key = attested.credentialPublicKey.mapEntries,
                let y = key.firstIndex(where: { $0.key == .int(-3) }),
                var coordinate = key[y].value.bytesValue
            else { break }
            coordinate[31] ^= 0x01
            key[y].value = .bytes(coordinate)
            attested.credentialPublicKey = .map(key)
            data.attestedCredentialData = attested
            setAuthData(data.encoded)
        case (.badAttestationStatement, true):
            set(3, .map([CBORMapEntry(.text("sig"), .bytes([0x30, 0x00]))]))
        default:
            break
        }
        return CTAPResponse.encode(status: .ok, body: .map(map))
    }
}
