import Foundation
import HybridCTAP
import HybridCore

/// What ``HybridClientRunner`` carries to the phone: one WebAuthn ceremony.
public enum HybridClientRequest: Sendable, Hashable {
    /// `navigator.credentials.create()`: a makeCredential.
    case registration(RegistrationCeremony)
    /// `navigator.credentials.get()`: a getAssertion.
    case authentication(AuthenticationCeremony)

    /// The QR code's request-type hint (key 5): `mc` or `ga`.
    package var requestType: HybridRequestType {
        switch self {
        case .registration: .makeCredential
        case .authentication: .getAssertion
        }
    }

    /// The one CTAP2 request (command byte + CBOR), built with the phone's getInfo from the
    /// post-handshake message (no separate getInfo round trip, protocol.md §8.1).
    func ctapRequest(authenticatorInfo: AuthenticatorGetInfoResponse?) throws(HybridClientError) -> [UInt8] {
        switch self {
        case .registration(let ceremony):
            do {
                return try ceremony.makeCredentialRequest(authenticatorInfo: authenticatorInfo).encoded
            } catch {
                throw .extensionUnsupported(error)
            }
        case .authentication(let ceremony):
            return ceremony.getAssertionRequest(authenticatorInfo: authenticatorInfo).encoded
        }
    }

    /// Maps the body of a successful CTAP2 response to the ceremony's response JSON; `authenticatorInfo`
    /// is the getInfo the request was built with.
    func response(
        to body: CBORValue, authenticatorInfo: AuthenticatorGetInfoResponse?
    ) throws(HybridClientError) -> HybridClientResponse {
        do {
            switch self {
            case .registration(let ceremony):
                return .registration(
                    try ceremony.response(
                        to: try MakeCredentialResponse(cbor: body), authenticatorInfo: authenticatorInfo))
            case .authentication(let ceremony):
                return .authentication(
                    try ceremony.response(
                        to: try GetAssertionResponse(cbor: body), authenticatorInfo: authenticatorInfo))
            }
        } catch let error as CTAPError {
            throw .invalidResponse(.ctap(error))
        } catch let error as ResponseMappingError {
            throw .invalidResponse(.mapping(error))
        } catch {
            throw .invalidResponse(.unexpected(UnexpectedError(error)))
        }
    }
}

/// What ``HybridClientRunner`` returns: the response JSON a relying party expects.
public enum HybridClientResponse: Sendable, Hashable {
    /// The answer to a ``HybridClientRequest/registration(_:)``.
    case registration(RegistrationResponseJSON)
    /// The answer to a ``HybridClientRequest/authentication(_:)``.
    case authentication(AuthenticationResponseJSON)

    /// The JSON text (keys sorted, no white space).
    public var json: Data {
        switch self {
        case .registration(let response): response.json
        case .authentication(let response): response.json
        }
    }
}
