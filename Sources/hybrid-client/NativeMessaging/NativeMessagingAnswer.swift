import Foundation
import HybridClient
import HybridCore

/// The DOMException names WebAuthn (§5.1.3, §5.1.4) and the Digital Credentials API give a page,
/// which the extension turns into the page's DOMException; plus `HostProtocolError` for a
/// message the host could not read (the extension's own bug, not the page's).
enum PageErrorName: String, Sendable {
    case notAllowed = "NotAllowedError"
    case security = "SecurityError"
    case invalidState = "InvalidStateError"
    case abort = "AbortError"
    case notSupported = "NotSupportedError"
    /// Options that are not WebAuthn's dictionaries (the page's TypeError).
    case type = "TypeError"
    case hostProtocol = "HostProtocolError"
}

/// One message to the extension. Sans-IO: ``json`` is what goes in the frame.
enum NativeMessagingAnswer: Sendable, Hashable {
    /// The answer to `hello`: the protocol version.
    case hello
    /// The ceremony reached a stage the extension shows: `qr` (the QR code is in the host's window),
    /// `connected` (the phone is on the line).
    case progress(id: String, stage: String)
    /// The credential: RegistrationResponseJSON / AuthenticationResponseJSON, or for a digital
    /// request `{"protocol":…,"data":…}`; `credential` is that JSON text.
    case result(id: String, credential: [UInt8])
    /// The request failed; `id` is nil for a message without a readable id.
    case error(id: String?, name: PageErrorName, message: String)

    /// The version `hello` answers with.
    static let protocolVersion = 1

    /// The compact JSON text.
    var json: [UInt8] {
        switch self {
        case .hello:
            return JSONNode.object(["type": .string("hello"), "version": .number("\(Self.protocolVersion)")]).encoded
        case .progress(let id, let stage):
            return JSONNode.object(["type": .string("progress"), "id": .string(id), "stage": .string(stage)]).encoded
        case .result(let id, let credential):
            let value = (try? JSONNode(parsing: credential, maxBytes: NativeMessageFraming.maxOutgoingBytes)) ?? .null
            return JSONNode.object(["type": .string("result"), "id": .string(id), "credential": value]).encoded
        case .error(let id, let name, let message):
            return JSONNode.object([
                "type": .string("error"), "id": id.map { JSONNode.string($0) } ?? JSONNode.null,
                "name": .string(name.rawValue),
                "message": .string(message),
            ]).encoded
        }
    }

    /// The answer to a refused message.
    init(refusal: NativeMessagingRequestError) {
        switch refusal.kind {
        case .malformedMessage(let reason): self = .error(id: refusal.id, name: .hostProtocol, message: reason)
        case .origin(let error): self = .error(id: refusal.id, name: .security, message: error.description)
        case .invalidOptions(let reason): self = .error(id: refusal.id, name: .type, message: reason)
        }
    }

    /// The answer to a ceremony that failed with `error`, as WebAuthn names it: an excluded
    /// credential is InvalidStateError, what the phone cannot do NotSupportedError, everything
    /// else (declined, no passkey, timed out, Bluetooth, tunnel) NotAllowedError, which tells the
    /// page nothing about why (WebAuthn §14.5.2's privacy rule).
    init(id: String, failure error: HybridClientError) {
        switch error {
        case .credentialExcluded: self = .error(id: id, name: .invalidState, message: error.description)
        case .extensionUnsupported, .ctapUnsupported, .digitalCredentialsUnsupported:
            self = .error(id: id, name: .notSupported, message: error.description)
        default: self = .error(id: id, name: .notAllowed, message: error.description)
        }
    }
}
