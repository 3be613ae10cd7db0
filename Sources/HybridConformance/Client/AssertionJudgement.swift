import HybridCTAP
import HybridCore

/// Judges a getAssertion reply for the credential the makeCredential created (CTAP 2.2 §6.2;
/// WebAuthn §6.1, §6.3.3), and the counter across the two.
package enum AssertionJudgement {
    static let checks = ResponseJudgementSupport.Checks(
        status: ClientChecks.getAssertionStatus, canonical: ClientChecks.getAssertionCanonical,
        response: ClientChecks.getAssertionResponse, authData: ClientChecks.getAssertionAuthData,
        rpIDHash: ClientChecks.getAssertionRPIDHash, flags: ClientChecks.getAssertionFlags)
    static let later = [ClientChecks.getAssertionSignature, ClientChecks.counter]

    /// Records the getAssertion checks into `report`.
    ///
    /// - Parameters:
    ///   - reply: The CTAP reply (status byte + CBOR), or `nil` if none came.
    ///   - credential: The credential registered earlier, the only one in the request's allowList.
    package static func judge(
        reply: [UInt8]?, rpID: String, clientDataHash: [UInt8], credential: RegisteredCredential,
        getInfo: AuthenticatorGetInfoResponse?, into report: inout ConformanceReport
    ) {
        guard let body = ResponseJudgementSupport.body(reply, checks: checks, later: later, into: &report) else {
            return
        }
        guard let authData = body[intKey: 2]?.bytesValue, let signature = body[intKey: 3]?.bytesValue else {
            report.fail(checks.response, observed: "authData or signature missing or not bytes")
            for check in [checks.authData, checks.rpIDHash, checks.flags] + later {
                report.skip(check, because: "the response map is malformed")
            }
            return
        }
        var problems: [String] = []
        if let field = body[intKey: 1] {
            if let descriptor = try? PublicKeyCredentialDescriptor(cbor: field) {
                if descriptor.id != credential.id {
                    problems.append("credential \(Hex.encode(descriptor.id)) is not the allowed one")
                }
            } else {
                problems.append("key 1 is not a credential descriptor")
            }
        }
        report.expect(
            checks.response, problems.isEmpty,
            observed: problems.isEmpty
                ? "authData \(authData.count) bytes, signature \(signature.count) bytes"
                : problems.joined(separator: "; "))
        let parsed = ResponseJudgementSupport.authenticatorData(
            authData, rpID: rpID, attested: false, getInfo: getInfo, checks: checks, into: &report)
        let valid = ResponseJudgementSupport.verifies(
            signature, by: credential.publicKey.publicKey, authData: authData, clientDataHash: clientDataHash)
        report.expect(
            ClientChecks.getAssertionSignature, valid,
            observed: valid
                ? "ES256 signature verifies with the registered key"
                : "signature does not verify with the registered key")
        guard let parsed else {
            report.skip(ClientChecks.counter, because: "authData does not parse")
            return
        }
        let before = credential.signCount
        let after = parsed.signCount
        report.expect(
            ClientChecks.counter, (before == 0 && after == 0) || after > before,
            observed: "makeCredential \(before), getAssertion \(after)")
    }
}
