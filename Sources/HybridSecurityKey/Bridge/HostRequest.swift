import HybridCTAP
import HybridCore

/// A makeCredential or getAssertion as a program sent it, decoded once: leniently
/// (``CTAPDecoding/lenient``) into HybridCTAP's typed request, which the policy decides on, with
/// the parameter map kept as sent (its keys put in canonical order), which is what the phone gets
/// after the policy's rewrites: every field the program sent, known to HybridCTAP or not.
package enum HostRequest: Sendable {
    case makeCredential(MakeCredentialRequest, parameters: CBORValue)
    case getAssertion(GetAssertionRequest, parameters: CBORValue)

    /// Why a request could not be decoded: the status the program gets and a reason for logs.
    package struct Refusal: Error, Sendable {
        package var status: CTAPStatusCode
        package var reason: String
    }

    /// Decodes `parameters` (the bytes after the command byte) of a makeCredential or
    /// getAssertion. Map keys may come in any order (Firefox writes its getAssertion options as
    /// `{"uv", "up"}`, ``CBORDecoder/MapKeyOrder/anyOrder``); anything else non-canonical is
    /// CTAP2_ERR_INVALID_CBOR, a parameter that is not a map CTAP2_ERR_CBOR_UNEXPECTED_TYPE, a
    /// missing required field (or one of the wrong type) CTAP2_ERR_MISSING_PARAMETER.
    /// - Throws: ``Refusal``; `nil` for another command.
    package static func decode(command: CTAPCommand, parameters: ArraySlice<UInt8>) throws(Refusal) -> HostRequest? {
        guard command == .makeCredential || command == .getAssertion else { return nil }
        let map: CBORValue
        do {
            map = try CBORDecoder.decode(parameters, mapKeys: .anyOrder)
        } catch {
            throw Refusal(
                status: .invalidCBOR, reason: "parameters are not CBOR that could be made canonical (\(error))")
        }
        guard map.mapEntries != nil else {
            throw Refusal(status: .cborUnexpectedType, reason: "parameters are not a map")
        }
        do {
            if command == .makeCredential {
                return .makeCredential(try MakeCredentialRequest(cbor: map, decoding: .lenient), parameters: map)
            }
            return .getAssertion(try GetAssertionRequest(cbor: map, decoding: .lenient), parameters: map)
        } catch {
            throw Refusal(status: error.statusCode, reason: "\(error)")
        }
    }

    /// The RP ID the request names.
    package var relyingPartyID: String {
        switch self {
        case .makeCredential(let request, _): request.rp.id
        case .getAssertion(let request, _): request.rpID
        }
    }
}
