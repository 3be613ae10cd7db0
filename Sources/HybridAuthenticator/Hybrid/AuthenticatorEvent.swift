import HybridCTAP
import HybridCore

/// Progress of one ``AuthenticatorRunner`` run, in the order it happens. The library never
/// prints; the `hybrid-authenticator` executable shows these as text or JSON lines.
public enum AuthenticatorEvent: Sendable, Hashable {
    /// Connecting to the tunnel server at `origin` (a self-hosted relay when overridden) for the
    /// tunnel domain the advert will name.
    case waitingForTunnel(origin: TunnelServerOrigin, domainID: TunnelDomainID)
    /// The relay accepted `/cable/new` and assigned this routing ID.
    case tunnelOpened(routingID: RoutingID)
    /// The tunnel could not be opened (`reason`), but the BLE L2CAP channel can carry the session:
    /// the run goes on without a tunnel.
    case tunnelUnavailable(reason: String)
    /// The QR code offered the BLE L2CAP channel (CTAP 2.3, protocol.md §3.4) and this phone
    /// listens on `psm`, which the advert carries.
    case listeningL2CAP(psm: UInt16)
    /// The advert is on the air: `serviceData` (20 bytes, and the CTAP 2.3 suffix when listening
    /// on a PSM) under the 16-bit service `uuid` (0xFFF9).
    case advertising(uuid: UInt16, serviceData: [UInt8])
    /// Advertising is off (the client connected, or the run is ending).
    case advertisingStopped
    /// The client's first message came through `channel`: the tunnel or the BLE L2CAP channel.
    case connected(channel: DataChannelKind)
    /// The Noise handshake is done and the post-handshake message (getInfo) is sent.
    case handshakeDone
    /// A CTAP request arrived: its command (nil if empty) and, for makeCredential and
    /// getAssertion, its RP ID.
    case request(command: CTAPCommand?, rpID: String?)
    /// The request was answered with `CTAP2_OK`.
    case approved(status: CTAPStatusCode)
    /// The request was answered with an error status (the user declined, no credentials, …).
    case denied(status: CTAPStatusCode)
    /// A digital-credential request (JSON, message type 03) arrived from the verifier page at
    /// `origin`, for one of these presentation protocols (in the page's order).
    case digitalCredentialRequest(origin: String, protocols: [String])
    /// The digital-credential request was answered: a presentation, or one of the refusals (all of
    /// which look the same to the client, protocol.md §7.8). Never carries claim values.
    case digitalCredentialAnswered(DigitalCredentialAnswerKind)
    /// The session ended normally.
    case done(AuthenticatorRunSummary)
    /// The run failed; `message` is the description of the ``AuthenticatorRunnerError`` thrown.
    case error(message: String)
}

/// What a finished run did.
public struct AuthenticatorRunSummary: Sendable, Hashable {
    /// One answered CTAP request.
    public struct Answer: Sendable, Hashable {
        /// The command byte, or `nil` for an empty request.
        public var command: CTAPCommand?
        /// The RP ID of a makeCredential or getAssertion request that parsed.
        public var rpID: String?
        /// The CTAP2 status sent back.
        public var status: CTAPStatusCode

        /// An answer from its fields.
        package init(command: CTAPCommand?, rpID: String?, status: CTAPStatusCode) {
            self.command = command
            self.rpID = rpID
            self.status = status
        }
    }

    /// Every request answered in this session, in order (phones answer one per session).
    public var answers: [Answer]
    /// How the session's digital-credential request was answered, if it had one.
    public var digitalCredential: DigitalCredentialAnswerKind?

    /// A summary of these answers.
    package init(answers: [Answer] = []) {
        self.answers = answers
    }

    /// Whether a request was served: a CTAP request answered with `CTAP2_OK`, or a digital
    /// credential presented.
    public var served: Bool { answers.contains { $0.status.isSuccess } || digitalCredential == .presented }
}
