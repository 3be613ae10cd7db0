import Crypto
import HybridCTAP
import HybridCore
import Logging

/// The CTAP2 engine of the authenticator: raw request in (command byte + CBOR), raw response
/// out (status byte + CBOR). Sans transport: the hybrid tunnel, or a test, carries the bytes.
///
/// - getInfo (0x04): ``getInfo``, whose `uv` option says whether the user interaction can verify
///   the user; makeCredential and getAssertion refuse `uv` when it cannot (`requireUserVerification(_:)`).
/// - makeCredential (0x01), getAssertion (0x02): see the extensions in their own files.
/// - selection (0x0B): asks the user; OK or operation denied.
/// - getNextAssertion (0x08): not allowed (0x30), since responses never announce more.
/// - anything else: invalid command (0x01). Malformed parameters get the status of their
///   `CTAPError`.
public struct CTAPAuthenticator: Sendable {
    /// Where the passkeys live.
    public let store: any PasskeyStore
    /// How the user approves, chooses and verifies.
    public let userInteraction: any UserInteraction
    /// The getInfo answer and attestation choice.
    public let configuration: AuthenticatorConfiguration
    let environment: AuthenticatorEnvironment
    let logger: Logger

    /// What happened to one request, for progress reports.
    package struct Outcome: Sendable {
        /// The command byte, or nil for an empty request.
        package let command: CTAPCommand?
        /// The RP ID of a makeCredential or getAssertion request that parsed.
        package let rpID: String?
        /// The CTAP2 status sent back.
        package let status: CTAPStatusCode
        /// The bytes to send back.
        package let response: [UInt8]
    }

    /// An authenticator over `store` that asks `userInteraction`.
    public init(
        store: any PasskeyStore, userInteraction: any UserInteraction,
        configuration: AuthenticatorConfiguration = AuthenticatorConfiguration(),
        environment: AuthenticatorEnvironment = .system,
        logger: Logger = Logger(label: "hybrid-authenticator.ctap", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.store = store
        self.userInteraction = userInteraction
        self.configuration = configuration
        self.environment = environment
        self.logger = logger
    }

    /// What getInfo answers and the post-handshake message carries: the configuration's, with
    /// option `uv` true only when ``UserInteraction/canVerifyUser``.
    public var getInfo: AuthenticatorGetInfoResponse {
        configuration.getInfo(userVerificationConfigured: userInteraction.canVerifyUser)
    }

    /// The response bytes for `request`.
    public func handle(_ request: [UInt8]) async -> [UInt8] { await process(request).response }

    /// Handles `request` and reports what happened.
    package func process(_ request: [UInt8]) async -> Outcome {
        let command = request.first.map(CTAPCommand.init(rawValue:))
        let parsed: CTAPRequest
        do {
            parsed = try CTAPRequest(bytes: request)
        } catch {
            logger.debug(
                "malformed CTAP request",
                metadata: ["ctap.command": "\(command?.description ?? "none")", "ctap.error": "\(error)"])
            return Outcome(
                command: command, rpID: nil, status: error.statusCode,
                response: CTAPResponse.encode(status: error.statusCode))
        }
        let rpID: String?
        let result: Result<CBORValue?, CTAPFailure>
        switch parsed {
        case .getInfo:
            (rpID, result) = (nil, .success(getInfo.cbor))
        case .makeCredential(let parameters):
            rpID = parameters.rp.id
            result = await Self.capture { () async throws(CTAPFailure) in try await makeCredential(parameters) }
        case .getAssertion(let parameters):
            rpID = parameters.rpID
            result = await Self.capture { () async throws(CTAPFailure) in try await getAssertion(parameters) }
        case .selection:
            let approved = await userInteraction.confirm(operation: .selection, rpID: nil, userName: nil)
            (rpID, result) = (nil, approved ? .success(nil) : .failure(CTAPFailure(.operationDenied)))
        case .getNextAssertion:
            (rpID, result) = (nil, .failure(CTAPFailure(.notAllowed)))
        case .other:
            (rpID, result) = (nil, .failure(CTAPFailure(.invalidCommand)))
        }
        switch result {
        case .success(let body):
            logger.debug("CTAP request served", metadata: ["ctap.command": "\(parsed.command)"])
            return Outcome(
                command: parsed.command, rpID: rpID, status: .ok, response: CTAPResponse.encode(status: .ok, body: body)
            )
        case .failure(let failure):
            logger.debug(
                "CTAP request failed",
                metadata: ["ctap.command": "\(parsed.command)", "ctap.status": "\(failure.status)"])
            return Outcome(
                command: parsed.command, rpID: rpID, status: failure.status,
                response: CTAPResponse.encode(status: failure.status))
        }
    }

    private static func capture(_ body: () async throws(CTAPFailure) -> CBORValue) async -> Result<
        CBORValue?, CTAPFailure
    > {
        do { return .success(try await body()) } catch { return .failure(error) }
    }

    /// Rejects pinUvAuthParam, which needs a PIN/UV auth protocol this authenticator does not
    /// offer (CTAP 2.1 §6.1.2 step 2, §6.2.2 step 2).
    func rejectPinUvAuth(param: [UInt8]?, protocol: UInt64?) throws(CTAPFailure) {
        guard param != nil else { return }
        throw CTAPFailure(`protocol` == nil ? .missingParameter : .invalidParameter)
    }

    /// Whether a request with effective option `uv` = `verify` can go on: it cannot ask for user
    /// verification when getInfo says `uv: false`. CTAP 2.1 §6.1.2 step 5 (makeCredential) and
    /// §6.2.2 step 5 (getAssertion), "If the "uv" option is true then: If the authenticator does not
    /// support a built-in user verification method end the operation by returning
    /// CTAP2_ERR_INVALID_OPTION. If the built-in user verification method has not yet been enabled,
    /// end the operation by returning CTAP2_ERR_INVALID_OPTION." (CTAP 2.0 said
    /// CTAP2_ERR_UNSUPPORTED_OPTION here; 2.1 changed it to INVALID_OPTION, 0x2C.)
    func requireUserVerification(_ verify: Bool) throws(CTAPFailure) {
        guard !verify || userInteraction.canVerifyUser else { throw CTAPFailure(.invalidOption) }
    }

    /// After the prompts: a request cancelled meanwhile (the client closed the tunnel) must change
    /// nothing, whatever the user answered. CTAP2_ERR_KEEPALIVE_CANCEL is CTAP's status for it.
    func ensureNotCancelled() throws(CTAPFailure) {
        if Task.isCancelled { throw CTAPFailure(.keepaliveCancel) }
    }

    /// A new P-256 key from the injected randomness.
    func makePrivateKey() throws(CTAPFailure) -> P256.Signing.PrivateKey {
        for _ in 0..<8 {
            if let key = try? P256.Signing.PrivateKey(rawRepresentation: environment.random.bytes(32)) { return key }
        }
        throw CTAPFailure(.other)
    }
}

/// An error status ending a request.
struct CTAPFailure: Error {
    let status: CTAPStatusCode
    init(_ status: CTAPStatusCode) { self.status = status }
}
