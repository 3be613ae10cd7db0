import Crypto
import HybridCTAP
import HybridClient
import HybridConformance
import HybridCore
import Synchronization

/// `hybrid-conformance client`: a strict client (a browser) for an authenticator under test.
///
/// Two QR ceremonies, as browsers run them (one request per hybrid session, protocol.md §7.5):
/// a makeCredential, then a getAssertion that allows only the new credential. Then three probes
/// that only a careless phone fails (``ConsentJudgement``): a getAssertion with `up` = false, a
/// session that sends a second getAssertion after the first reply, and a QR code without a
/// timestamp (which must not get a handshake within ``refusalWait``). Each ceremony runs
/// on ``HybridClientRunner`` (QR event, BLE scan, tunnel, ``ClientSession``), while a
/// ``FrameInspector`` opens every message the authenticator sends with the ceremony's keys. The
/// judgements (``SessionJudgement``, ``GetInfoJudgement``, ``RegistrationJudgement``,
/// ``AssertionJudgement``) turn what was seen into the report.
package struct ClientConformanceRun: Sendable {
    /// The RP ID of both requests.
    package let rpID: String
    /// How the ceremonies reach the authenticator (Bluetooth backend, relay, CA file, time limit).
    package let clientOptions: HybridClientOptions
    /// How long the QR code without a timestamp waits for a handshake that should never come.
    package let refusalWait: Duration
    /// Also judge the digital-credential path (`dcp` QR codes, JSON type 03; protocol.md §7.8).
    package var includesDigitalCredentials = false
    /// Also judge the crypter's sequence limit (``SequenceLimitJudgement``): two more QR codes, each
    /// session carrying 2^24 messages over the tunnel, which may take this long beyond the
    /// ceremony's usual time limit. `nil`: not judged.
    package var sequenceLimitTime: Duration?

    package init(rpID: String, clientOptions: HybridClientOptions, refusalWait: Duration = .seconds(30)) {
        self.rpID = rpID
        self.clientOptions = clientOptions
        self.refusalWait = refusalWait
    }

    /// Runs both ceremonies and judges them. `events` sees each ceremony's progress, including its
    /// ``HybridClientEvent/qr(url:)`` (show it; the authenticator scans it).
    package func run(events: @escaping @Sendable (HybridClientEvent) -> Void) async throws -> ConformanceReport {
        let origin = try WebOrigin("https://" + rpID)
        let registrationData = ClientData(ceremony: .create, challenge: Self.randomBytes(32), origin: origin)
        let registration = try await ceremony("makeCredential", requestType: .makeCredential, events: events) {
            getInfo in
            MakeCredentialRequest(
                clientDataHash: registrationData.hash,
                rp: PublicKeyCredentialRPEntity(id: rpID, name: "hybrid-conformance"),
                user: PublicKeyCredentialUserEntity(
                    id: Self.randomBytes(16), name: "conformance", displayName: "Conformance"),
                publicKeyCredentialParameters: [PublicKeyCredentialParameters(algorithm: COSEAlgorithm.es256)],
                options: Self.requestOptions(getInfo)
            ).encoded
        }
        let getInfoBytes = SessionJudgement.getInfo([registration])
        let info = getInfoBytes.flatMap { try? AuthenticatorGetInfoResponse(bytes: $0) }
        var registrationReport = ConformanceReport(mode: "client", subject: "")
        let credential = RegistrationJudgement.judge(
            reply: registration.reply, rpID: rpID, clientDataHash: registrationData.hash, getInfo: info,
            into: &registrationReport)

        var ceremonies = [registration]
        var assertionReport = ConformanceReport(mode: "client", subject: "")
        if let credential {
            let assertionData = ClientData(ceremony: .get, challenge: Self.randomBytes(32), origin: origin)
            let assertion = try await ceremony("getAssertion", requestType: .getAssertion, events: events) { getInfo in
                GetAssertionRequest(
                    rpID: rpID, clientDataHash: assertionData.hash,
                    allowList: [PublicKeyCredentialDescriptor(id: credential.id)],
                    options: Self.requestOptions(getInfo)
                ).encoded
            }
            ceremonies.append(assertion)
            AssertionJudgement.judge(
                reply: assertion.reply, rpID: rpID, clientDataHash: assertionData.hash, credential: credential,
                getInfo: info, into: &assertionReport)
        } else {
            for check in [
                ClientChecks.getAssertionStatus, ClientChecks.getAssertionCanonical, ClientChecks.getAssertionResponse,
                ClientChecks.getAssertionAuthData, ClientChecks.getAssertionRPIDHash, ClientChecks.getAssertionFlags,
                ClientChecks.getAssertionSignature, ClientChecks.counter,
            ] {
                assertionReport.skip(check, because: "makeCredential gave no usable credential")
            }
        }

        let probeReport = try await probes(
            credential: credential, getInfo: info, anyReply: !registration.messages.isEmpty,
            events: events)

        var report = ConformanceReport(
            mode: "client", subject: "authenticator that scanned the QR codes (RP ID \(rpID))")
        L2CAPJudgement.judgeAdverts(ceremonies, into: &report)
        L2CAPJudgement.judgeSessions(ceremonies, into: &report)
        AdvertRoutingJudgement.judge(ceremonies, into: &report)
        SessionJudgement.judge(ceremonies, into: &report)
        UpdateJudgement.judge(ceremonies, into: &report)
        GetInfoJudgement.judge(getInfoBytes, into: &report)
        report.append(contentsOf: registrationReport)
        report.append(contentsOf: assertionReport)
        report.append(contentsOf: probeReport)
        if includesDigitalCredentials {
            DigitalCredentialJudgement.judge(try await digitalCredentialProbes(events: events), into: &report)
        }
        if let sequenceLimitTime {
            let (atLimit, pastLimit) = try await sequenceLimitProbes(time: sequenceLimitTime, events: events)
            SequenceLimitJudgement.judge(atLimit: atLimit, pastLimit: pastLimit, into: &report)
        }
        return report
    }

    /// The consent and freshness probes (a silent getAssertion, a second request in one session, an
    /// undated QR code), each in its own QR ceremony.
    private func probes(
        credential: RegisteredCredential?, getInfo: AuthenticatorGetInfoResponse?, anyReply: Bool,
        events: @escaping @Sendable (HybridClientEvent) -> Void
    ) async throws -> ConformanceReport {
        var report = ConformanceReport(mode: "client", subject: "")
        if let credential {
            let silent = try await ceremony("silentGetAssertion", requestType: .getAssertion, events: events) { _ in
                GetAssertionRequest(
                    rpID: rpID, clientDataHash: Self.randomBytes(32),
                    allowList: [PublicKeyCredentialDescriptor(id: credential.id)],
                    options: CTAPRequestOptions(userPresence: false)
                ).encoded
            }
            ConsentJudgement.judgeSilentAssertion(silent, into: &report)

            let assertion: @Sendable (AuthenticatorGetInfoResponse?) -> [UInt8] = { info in
                GetAssertionRequest(
                    rpID: rpID, clientDataHash: Self.randomBytes(32),
                    allowList: [PublicKeyCredentialDescriptor(id: credential.id)], options: Self.requestOptions(info)
                ).encoded
            }
            var twice = HybridSessionSetup.Deviations.none
            twice.followUpRequest = .ctap(assertion(getInfo))
            let second = try await ceremony(
                "secondRequest", requestType: .getAssertion, deviations: twice, events: events
            ) {
                assertion($0)
            }
            ConsentJudgement.judgeSecondRequest(second, into: &report)
        } else {
            for check in [ClientChecks.silentAssertion, ClientChecks.oneRequest] {
                report.skip(check, because: "makeCredential gave no usable credential")
            }
        }
        guard anyReply else {
            report.skip(ClientChecks.undatedQRCode, because: "no authenticator answered the first QR code")
            return report
        }
        var undatedOptions = clientOptions
        undatedOptions.timeout = refusalWait
        var undatedQRCode = HybridSessionSetup.Deviations.none
        undatedQRCode.omitsQRTimestamp = true
        let undated = try await ceremony(
            "undatedQRCode", requestType: .getAssertion, options: undatedOptions, deviations: undatedQRCode,
            events: events
        ) { _ in
            GetAssertionRequest(rpID: rpID, clientDataHash: Self.randomBytes(32)).encoded
        }
        ConsentJudgement.judgeUndatedQRCode(undated, into: &report)
        return report
    }

    /// User verification when getInfo offers it (a browser's "preferred"); otherwise presence only.
    private static func requestOptions(_ getInfo: AuthenticatorGetInfoResponse?) -> CTAPRequestOptions? {
        getInfo?.options?["uv"] == true ? CTAPRequestOptions(userVerification: true) : nil
    }

    /// Runs one QR ceremony carrying the request `makeRequest` builds from the authenticator's
    /// getInfo, with `deviations` from a browser's session, and returns what was seen, also when the
    /// ceremony fails. Cancellation is rethrown.
    func ceremony(
        _ name: String, requestType: HybridRequestType, options: HybridClientOptions? = nil,
        deviations: HybridSessionSetup.Deviations = .none,
        events: @escaping @Sendable (HybridClientEvent) -> Void,
        makeRequest: @escaping @Sendable (AuthenticatorGetInfoResponse?) -> [UInt8]
    ) async throws -> CeremonyTranscript {
        var setup = HybridSessionSetup(requestType: requestType)
        let seen = CeremonyRecorder(request: name, keys: setup.keys)
        setup.deviations = deviations
        setup.deviations.opensUnofferedAdvertSuffix = true
        setup.observer = seen
        let runner = HybridClientRunner(options: options ?? clientOptions)
        let recordedEvents: @Sendable (HybridClientEvent) -> Void = { event in
            seen.record(event)
            events(event)
        }
        do {
            let reply = try await runner.firstResponse { deliver in
                try await runner.carryCTAP(setup, events: recordedEvents) { postHandshake, _ in
                    makeRequest(postHandshake.getInfo.flatMap { try? AuthenticatorGetInfoResponse(bytes: $0) })
                } finish: { reply, _ in
                    reply
                } deliver: { reply in
                    await deliver(reply)
                }
            }
            return seen.state.withLock { state in
                state.transcript.reply = reply
                return state.transcript
            }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            return seen.state.withLock { state in
                state.transcript.failure = "\(error)"
                return state.transcript
            }
        }
    }

    private static func randomBytes(_ count: Int) -> [UInt8] {
        SymmetricKey(size: SymmetricKeySize(bitCount: count * 8)).withUnsafeBytes { Array($0) }
    }
}

/// What one ceremony has seen so far, shared between the runner's session and the caller: the
/// matched advert, and every message from the authenticator, opened with the ceremony's keys.
private final class CeremonyRecorder: HybridSessionObserver {
    let state: Mutex<(transcript: CeremonyTranscript, inspector: FrameInspector?)>
    /// The ceremony's keys, which open the authenticator's messages.
    let keys: HybridClientRunner.Keys

    init(request: String, keys: HybridClientRunner.Keys) {
        state = Mutex((CeremonyTranscript(request: request), nil))
        self.keys = keys
    }

    func advertMatched(serviceData: [UInt8], offeredChannels: [DataTransferChannel]?) {
        let eidKey = EIDKey(deriving: keys.qrSecret.bytes, salt: nil)
        let plaintext = Result<AdvertPlaintext, AdvertError>(catching: { () throws(AdvertError) -> AdvertPlaintext in
            try eidKey.decrypt(serviceData.prefix(AdvertServiceData.advertByteCount))
        })
        state.withLock {
            $0.transcript.advert = (serviceData, offeredChannels)
            $0.transcript.advertPlaintext = plaintext
        }
    }

    /// Keeps what the runner's events say about the data channel.
    func record(_ event: HybridClientEvent) {
        state.withLock { state in
            switch event {
            case .connectingL2CAP(let psm): state.transcript.l2capAttempt = psm
            case .l2capUnavailable(let reason): state.transcript.l2capGivenUp = reason.description
            case .channel(let kind): state.transcript.channel = kind
            default: break
            }
        }
    }

    func messageReceived(_ message: [UInt8], advert: AdvertPlaintext) {
        state.withLock { state in
            var inspector =
                state.inspector
                ?? FrameInspector(
                    identityKey: keys.identityKey, qrSecret: keys.qrSecret, ephemeralKey: keys.ephemeralKey,
                    advert: advert)
            state.transcript.messages.append(inspector.inspect(message))
            state.inspector = inspector
        }
    }
}
