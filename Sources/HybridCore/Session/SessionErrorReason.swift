/// An event a session driver calls; named by ``SessionError/outOfOrder(_:)``.
public enum SessionEvent: String, Sendable, Hashable {
    case start, tunnelOpened, send, messageReceived, requestCompleted
}

/// Why an event came out of order: the driver's mistake, not the peer's.
public enum OutOfOrderReason: Hashable, Sendable, CustomStringConvertible {
    /// `event` is not accepted in the state named `state`.
    case event(SessionEvent, state: String)
    /// The client was given a second request before the first was sent.
    case requestAlreadyQueued
    /// The phone's answer is not of the request's message type.
    case responseTypeDiffersFromRequest

    /// One line for logs and users.
    public var description: String {
        switch self {
        case .event(let event, let state): "\(event.rawValue) in state \(state)"
        case .requestAlreadyQueued: "a request is already queued"
        case .responseTypeDiffersFromRequest: "response type differs from request"
        }
    }
}

/// Why the phone's post-handshake message was rejected (protocol.md §7.2).
public enum InvalidPostHandshakeReason: Hashable, Sendable, CustomStringConvertible {
    /// The message does not parse.
    case message(HybridMessageError)
    /// Its legacy linking info (key 2) does not parse or verify.
    case linking(HybridMessageError)
    /// A request of this type needs protocol revision 1, and the phone speaks revision 0.
    case needsRevisionOne(HybridMessageType)
    /// The request needs a feature (key 3) the phone did not offer: JSON needs `"dc"`, CTAP needs
    /// `"ctap"` (§7.2). Nothing was sent.
    case lacksFeature(HybridFeature)

    /// One line for logs and users.
    public var description: String {
        switch self {
        case .message(let error): "\(error)"
        case .linking(let error): "invalid linking info: \(error)"
        case .needsRevisionOne(let type): "a \(type) request needs protocol revision 1"
        case .lacksFeature(let feature): "the phone does not offer \"\(feature.rawValue)\""
        }
    }
}

/// Why a decrypted message was rejected as a frame (protocol.md §7.3–7.5).
public enum InvalidFrameReason: Hashable, Sendable, CustomStringConvertible {
    /// It is not a frame of the session's revision.
    case frame(HybridMessageError)
    /// The client sent a second request before the first was answered.
    case secondRequest
    /// The client sent a second request after the first was answered: a phone serves one request
    /// per QR code (getInfo aside).
    case moreThanOneRequest
    /// The client's update message is not CBOR.
    case clientUpdateNotCBOR(CBORError)
    /// The phone sent a message of this type where only an update may come.
    case unsolicited(HybridMessageType)
    /// The phone sent shutdown, which only a client may send.
    case authenticatorShutdown
    /// The phone's reply is not of the request's type.
    case replyTypeDiffersFromRequest
    /// The phone's update message is malformed or its linking info does not verify.
    case update(HybridMessageError)
    /// The client sent a request of a kind the phone did not offer in its post-handshake features:
    /// JSON without `"dc"`, CTAP without `"ctap"` (§7.2, §7.3).
    case featureNotOffered(HybridFeature)

    /// One line for logs and users.
    public var description: String {
        switch self {
        case .frame(let error): "\(error)"
        case .secondRequest: "a second request arrived before the first was answered"
        case .moreThanOneRequest: "a second request arrived: one QR code buys one request"
        case .clientUpdateNotCBOR(let error): "the client's update is not CBOR: \(error)"
        case .unsolicited(let type): "unsolicited \(type) message"
        case .authenticatorShutdown: "the authenticator sent shutdown"
        case .replyTypeDiffersFromRequest: "reply type differs from request"
        case .update(let error): "invalid update message: \(error)"
        case .featureNotOffered(let feature): "a request that needs \"\(feature.rawValue)\", which was not offered"
        }
    }
}
