import Foundation
import HybridCore

/// The wallet's answer to one OpenID4VP request, in two steps around the user's consent:
/// ``prepare(requestData:origin:credentials:)`` parses and evaluates and says what would be
/// shared; after the user agrees, ``respond(to:deviceKey:now:)`` builds the response.
///
/// The response data is `{"vp_token": {<credential query id>: [<presentation>]}}` (OpenID4VP 1.0
/// §8.1, Appendix A.4): for `dc+sd-jwt` the SD-JWT with only the selected disclosures and a
/// key-binding JWT with `aud` `origin:<origin>` and the request's nonce; for `mso_mdoc` the
/// base64url of a DeviceResponse signed over the DC API session transcript.
package enum WalletPresenter {
    /// A request evaluated and ready for consent.
    package struct Prepared: Hashable, Sendable {
        /// The verifier's origin.
        package let origin: String
        /// The request.
        package let request: OpenID4VPRequest
        /// The credentials chosen and the claims queries they answer.
        package let matches: [DCQLEvaluator.Match]
        /// What each match sends, in the same order: fixed here, before the consent, so that the
        /// consent is computed from it and the response built from it.
        package let releases: [Release]
        /// The claims paths each release reveals, read back from what it sends
        /// (``RevealedClaims``), in the same order.
        package let revealed: [[[ClaimsPathComponent]]]

        /// What to ask the user: every claim the presentation reveals, by its name.
        package var consent: ConsentRequest {
            ConsentRequest(
                origin: origin,
                items: zip(matches, zip(releases, revealed)).map { (match, release) -> ConsentRequest.Item in
                    let names = RevealedClaims.names(of: release.1)
                    switch release.0 {
                    case .sdJWT: return (ConsentRequest.credentialName(match.credential.type), names)
                    case .mdoc:
                        return (
                            ConsentRequest.credentialName(match.credential.type),
                            names + RevealedClaims.mdocIssuerAuthNames
                        )
                    }
                })
        }
    }

    /// What one match sends.
    package enum Release: Hashable, Sendable {
        /// The SD-JWT as sent before its key-binding JWT: `<issuer JWT>~<disclosures>~`.
        case sdJWT(disclosedPart: String)
        /// The mdoc and the elements released from it (with its `issuerAuth`).
        case mdoc(MdocCredential, elements: [MdocCredential.Element])
    }

    /// Parses `requestData` (an `openid4vp-v1-unsigned` request's `data`) from `origin` and
    /// evaluates its query over `credentials` (newest first).
    /// - Throws: ``WalletError/malformedRequest(_:)``, ``WalletError/unsupported(_:)``,
    ///   ``WalletError/noMatchingCredential``.
    package static func prepare(requestData: [UInt8], origin: String, credentials: [WalletCredential])
        throws(WalletError) -> Prepared
    {
        try prepare(request: try OpenID4VPRequest(data: requestData), origin: origin, credentials: credentials)
    }

    /// Evaluates the parsed `request` from `origin` over `credentials` (newest first).
    /// - Throws: ``WalletError/malformedRequest(_:)`` for a bad origin,
    ///   ``WalletError/noMatchingCredential``.
    package static func prepare(request: OpenID4VPRequest, origin: String, credentials: [WalletCredential])
        throws(WalletError) -> Prepared
    {
        guard !origin.isEmpty, !origin.contains(where: \.isWhitespace) else {
            throw .malformedRequest("the origin is empty or has white space")
        }
        let matches = try DCQLEvaluator.evaluate(request.query, credentials: credentials)
        var releases: [Release] = []
        var revealed: [[[ClaimsPathComponent]]] = []
        for match in matches {
            switch match.credential {
            case .sdJWT(let credential):
                var indices: Set<Int> = []
                for claim in match.claims {
                    indices.formUnion(credential.select(claim.path, values: claim.values)?.disclosureIndices ?? [])
                }
                let part = SDJWTPresentation.disclosedPart(credential, disclosureIndices: indices)
                releases.append(.sdJWT(disclosedPart: part))
                revealed.append(try RevealedClaims.paths(ofDisclosedPart: part))
            case .mdoc(let credential):
                let elements = match.claims.compactMap { credential.element($0.path, values: $0.values) }
                releases.append(.mdoc(credential, elements: elements))
                revealed.append(RevealedClaims.paths(of: elements))
            }
        }
        return Prepared(origin: origin, request: request, matches: matches, releases: releases, revealed: revealed)
    }

    /// The response data (UTF-8 JSON) for `prepared`, signed with `deviceKey` at `now`.
    /// - Throws: ``WalletError/invalidCredential(_:)`` when a chosen credential is bound to
    ///   another key than `deviceKey` (nothing is signed then).
    package static func respond(to prepared: Prepared, deviceKey: DeviceKey, now: Date) throws(WalletError) -> [UInt8] {
        var token: [String: JSONItem] = [:]
        for (match, release) in zip(prepared.matches, prepared.releases) {
            guard match.credential.boundKey == deviceKey.publicJWK else {
                throw .invalidCredential("credential \(match.credentialID) is bound to another key")
            }
            let presentation: String
            switch release {
            case .sdJWT(let disclosedPart):
                presentation = SDJWTPresentation.keyBound(
                    disclosedPart, audience: "origin:" + prepared.origin, nonce: prepared.request.nonce,
                    issuedAt: now, deviceKey: deviceKey)
            case .mdoc(let credential, let elements):
                let transcript = SessionTranscript.dcAPI(origin: prepared.origin, nonce: prepared.request.nonce)
                presentation = Base64URL.encode(
                    DeviceResponseBuilder.deviceResponse(
                        credential, elements: elements, sessionTranscript: transcript, deviceKey: deviceKey))
            }
            token[match.queryID] = .array([.string(presentation)])
        }
        return JSONItem.object(["vp_token": .object(token)]).encodedBytes
    }
}
