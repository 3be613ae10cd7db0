import Foundation
import HybridClient
import HybridCore

/// One message from the extension's background script (docs/firefox.md, "The messages"). The
/// origin is the one Firefox reported as the message's sender: the extension never takes it from
/// the page. Sans-IO: bytes in, a checked request out.
enum NativeMessagingRequest: Sendable {
    /// `{"type":"hello"}`: the extension checks that the host runs; answered with its version.
    case hello
    /// `{"type":"create"|"get","id":…,"origin":…,"options":{…}}`: a WebAuthn ceremony, the
    /// options as PublicKeyCredentialCreationOptionsJSON / PublicKeyCredentialRequestOptionsJSON.
    case ceremony(id: String, HybridClientRequest, optionsTimeout: UInt32?)
    /// `{"type":"digital","id":…,"origin":…,"request":{"requests":[…]}}`: a Digital Credentials
    /// `get`.
    case digital(id: String, DigitalCredentialRequest, origin: WebOrigin)
    /// `{"type":"abort","id":…}`: the page's AbortSignal fired, or its tab went away.
    case abort(id: String)

    /// The longest request id accepted.
    static let maxIDLength = 64

    /// Reads one message.
    ///
    /// - Throws: ``NativeMessagingRequestError``; its ``NativeMessagingRequestError/id`` is the
    ///   request's id when the message had a readable one, so the answer reaches that request.
    init(json bytes: [UInt8]) throws(NativeMessagingRequestError) {
        let message: JSONNode
        do { message = try JSONNode(parsing: bytes, maxBytes: NativeMessageFraming.maxIncomingBytes) } catch {
            throw NativeMessagingRequestError(id: nil, kind: .malformedMessage("not JSON: \(error)"))
        }
        guard message.isObject else {
            throw NativeMessagingRequestError(id: nil, kind: .malformedMessage("not a JSON object"))
        }
        guard let type = message[member: "type"]?.stringValue else {
            throw NativeMessagingRequestError(id: nil, kind: .malformedMessage("no string member \"type\""))
        }
        if type == "hello" {
            self = .hello
            return
        }
        let id = try Self.id(in: message)
        switch type {
        case "abort":
            self = .abort(id: id)
        case "create", "get":
            let origin = try Self.origin(in: message, id: id)
            guard let options = message[member: "options"], options.isObject else {
                throw NativeMessagingRequestError(id: id, kind: .malformedMessage("no object member \"options\""))
            }
            self = try Self.ceremony(type: type, id: id, options: Data(options.encoded), origin: origin)
        case "digital":
            let origin = try Self.origin(in: message, id: id)
            guard let request = message[member: "request"], request.isObject else {
                throw NativeMessagingRequestError(id: id, kind: .malformedMessage("no object member \"request\""))
            }
            do {
                self = .digital(id: id, try DigitalCredentialRequest(json: request.encoded), origin: origin)
            } catch {
                throw NativeMessagingRequestError(id: id, kind: .invalidOptions("\(error)"))
            }
        default:
            throw NativeMessagingRequestError(id: id, kind: .malformedMessage("unknown type \"\(type)\""))
        }
    }

    private static func id(in message: JSONNode) throws(NativeMessagingRequestError) -> String {
        guard let id = message[member: "id"]?.stringValue, (1...maxIDLength).contains(id.utf8.count),
            id.utf8.allSatisfy({
                $0 == 0x2D || $0 == 0x5F || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0)
                    || (0x61...0x7A).contains($0)
            })
        else {
            throw NativeMessagingRequestError(
                id: nil, kind: .malformedMessage("\"id\" must be 1 to \(maxIDLength) characters of A-Z a-z 0-9 - _"))
        }
        return id
    }

    private static func origin(in message: JSONNode, id: String) throws(NativeMessagingRequestError) -> WebOrigin {
        guard let text = message[member: "origin"]?.stringValue else {
            throw NativeMessagingRequestError(id: id, kind: .malformedMessage("no string member \"origin\""))
        }
        do { return try WebOrigin(text) } catch { throw NativeMessagingRequestError(id: id, kind: .origin(error)) }
    }

    private static func ceremony(
        type: String, id: String, options: Data, origin: WebOrigin
    ) throws(NativeMessagingRequestError) -> NativeMessagingRequest {
        do {
            if type == "create" {
                let parsed = try PublicKeyCredentialCreationOptionsJSON(json: options)
                do {
                    return .ceremony(
                        id: id, .registration(try RegistrationCeremony(options: parsed, origin: origin)),
                        optionsTimeout: parsed.timeout)
                } catch { throw NativeMessagingRequestError(id: id, kind: .origin(error)) }
            }
            let parsed = try PublicKeyCredentialRequestOptionsJSON(json: options)
            do {
                return .ceremony(
                    id: id, .authentication(try AuthenticationCeremony(options: parsed, origin: origin)),
                    optionsTimeout: parsed.timeout)
            } catch { throw NativeMessagingRequestError(id: id, kind: .origin(error)) }
        } catch let error as WebAuthnOptionsError {
            throw NativeMessagingRequestError(id: id, kind: .invalidOptions(error.description))
        } catch let error as NativeMessagingRequestError {
            throw error
        } catch {
            throw NativeMessagingRequestError(id: id, kind: .invalidOptions("\(error)"))
        }
    }
}

/// Why a message from the extension was refused; answered as an `error` message, never a crash.
struct NativeMessagingRequestError: Error, Hashable {
    enum Kind: Hashable {
        /// Not a message of this protocol (framing, JSON, members).
        case malformedMessage(String)
        /// The origin is not one WebAuthn accepts, or the RP ID is not the origin's.
        case origin(OriginError)
        /// The options do not read as WebAuthn's JSON forms (or a digital request).
        case invalidOptions(String)
    }

    /// The request's id, when the message had one.
    let id: String?
    let kind: Kind
}
