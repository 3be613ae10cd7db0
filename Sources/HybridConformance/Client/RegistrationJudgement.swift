import Crypto
import HybridCTAP
import HybridCore

/// The credential a makeCredential created, as the getAssertion that follows needs it.
package struct RegisteredCredential: Sendable, Equatable {
    package let id: [UInt8]
    package let publicKey: COSEKey
    package let signCount: UInt32

    package init(id: [UInt8], publicKey: COSEKey, signCount: UInt32) {
        self.id = id
        self.publicKey = publicKey
        self.signCount = signCount
    }
}

/// Judges a makeCredential reply in full (CTAP 2.2 §6.1; WebAuthn §6.1, §6.5, §8).
package enum RegistrationJudgement {
    static let checks = ResponseJudgementSupport.Checks(
        status: ClientChecks.makeCredentialStatus, canonical: ClientChecks.makeCredentialCanonical,
        response: ClientChecks.makeCredentialResponse, authData: ClientChecks.makeCredentialAuthData,
        rpIDHash: ClientChecks.makeCredentialRPIDHash, flags: ClientChecks.makeCredentialFlags)
    static let credentialChecks = [
        ClientChecks.makeCredentialAAGUID, ClientChecks.makeCredentialCredentialID, ClientChecks.makeCredentialKey,
        ClientChecks.makeCredentialAttestation,
    ]

    /// Records the makeCredential checks into `report`.
    ///
    /// - Parameters:
    ///   - reply: The CTAP reply (status byte + CBOR), or `nil` if none came.
    ///   - rpID: The RP ID of the request.
    ///   - clientDataHash: The request's clientDataHash.
    ///   - getInfo: The authenticator's getInfo, if it parsed.
    /// - Returns: The new credential, when its ID and key are usable.
    package static func judge(
        reply: [UInt8]?, rpID: String, clientDataHash: [UInt8], getInfo: AuthenticatorGetInfoResponse?,
        into report: inout ConformanceReport
    ) -> RegisteredCredential? {
        guard let body = ResponseJudgementSupport.body(reply, checks: checks, later: credentialChecks, into: &report)
        else { return nil }
        guard let format = body[intKey: 1]?.textValue, let authData = body[intKey: 2]?.bytesValue,
            let statement = body[intKey: 3], statement.mapEntries != nil
        else {
            report.fail(checks.response, observed: "fmt, authData or attStmt missing or of the wrong type")
            for check in [checks.authData, checks.rpIDHash, checks.flags] + credentialChecks {
                report.skip(check, because: "the response map is malformed")
            }
            return nil
        }
        report.pass(checks.response, observed: "fmt \"\(format)\", authData \(authData.count) bytes")
        let parsed = ResponseJudgementSupport.authenticatorData(
            authData, rpID: rpID, attested: true, getInfo: getInfo, checks: checks, into: &report)
        guard let attested = parsed?.attestedCredentialData else {
            for check in credentialChecks { report.skip(check, because: "no attested credential data") }
            return nil
        }
        judgeAAGUID(attested.aaguid, format: format, getInfo: getInfo, into: &report)
        let idLength = attested.credentialID.count
        report.expect(
            ClientChecks.makeCredentialCredentialID,
            (16...AttestedCredentialData.maximumCredentialIDLength).contains(idLength),
            observed: "\(idLength) bytes")
        let key: COSEKey
        do {
            key = try COSEKey(cbor: attested.credentialPublicKey)
            report.pass(
                ClientChecks.makeCredentialKey,
                observed: "ES256 P-256 point \(Hex.encode(Array(key.x963Representation.prefix(9))))…")
        } catch {
            report.fail(ClientChecks.makeCredentialKey, observed: "\(error)")
            report.skip(ClientChecks.makeCredentialAttestation, because: "no usable credential key")
            return nil
        }
        judgeStatement(
            format: format, statement: statement, key: key, authData: authData,
            clientDataHash: clientDataHash, into: &report)
        return RegisteredCredential(id: attested.credentialID, publicKey: key, signCount: parsed?.signCount ?? 0)
    }

    private static func judgeAAGUID(
        _ aaguid: [UInt8], format: String, getInfo: AuthenticatorGetInfoResponse?, into report: inout ConformanceReport
    ) {
        let zero = aaguid.allSatisfy { $0 == 0 }
        guard let getInfo else {
            report.skip(
                ClientChecks.makeCredentialAAGUID,
                because: "no usable getInfo to compare aaguid \(Hex.encode(aaguid)) with")
            return
        }
        let matches = getInfo.aaguid == aaguid
        report.expect(
            ClientChecks.makeCredentialAAGUID, matches || (zero && format == AttestationFormat.none),
            observed: "aaguid \(Hex.encode(aaguid))"
                + (matches ? " (getInfo's)" : zero ? " (zeros)" : ", getInfo says \(Hex.encode(getInfo.aaguid))"))
    }

    /// "none": `{}`. "packed": `alg` -7 and `sig` over authData ‖ clientDataHash, by the credential
    /// key (self attestation) — with `x5c` the chain cannot be verified here and is skipped.
    private static func judgeStatement(
        format: String, statement: CBORValue, key: COSEKey, authData: [UInt8], clientDataHash: [UInt8],
        into report: inout ConformanceReport
    ) {
        let check = ClientChecks.makeCredentialAttestation
        let entries = statement.mapEntries ?? []
        switch format {
        case AttestationFormat.none:
            report.expect(
                check, entries.isEmpty,
                observed: entries.isEmpty ? "\"none\", {}" : "\"none\" with \(entries.count) attStmt entries")
        case AttestationFormat.packed:
            guard statement[textKey: "alg"]?.intValue == COSEAlgorithm.es256,
                let signature = statement[textKey: "sig"]?.bytesValue
            else {
                report.fail(check, observed: "\"packed\" without alg -7 and a sig")
                return
            }
            if let x5c = statement[textKey: "x5c"] {
                judgeCertificateStatement(
                    x5c, signature: signature, authData: authData, clientDataHash: clientDataHash, into: &report)
                return
            }
            let valid = ResponseJudgementSupport.verifies(
                signature, by: key.publicKey, authData: authData, clientDataHash: clientDataHash)
            report.expect(
                check, valid,
                observed: valid
                    ? "\"packed\" self attestation, signature verifies"
                    : "\"packed\" self attestation, signature does not verify")
        default:
            report.fail(check, observed: "unknown format \"\(format)\"")
        }
    }

    /// "packed" with `x5c`: a non-empty array of certificates whose first (v3, P-256) key signed
    /// authData ‖ clientDataHash. The chain to a root is not verified (no trust anchors here).
    private static func judgeCertificateStatement(
        _ x5c: CBORValue, signature: [UInt8], authData: [UInt8], clientDataHash: [UInt8],
        into report: inout ConformanceReport
    ) {
        let check = ClientChecks.makeCredentialAttestation
        guard let certificates = x5c.arrayValue?.compactMap(\.bytesValue), let leaf = certificates.first,
            certificates.count == x5c.arrayValue?.count
        else {
            report.fail(check, observed: "\"packed\" x5c is not a non-empty array of byte strings")
            return
        }
        do {
            let key = try AttestationCertificateKey.publicKey(certificate: leaf)
            let valid = ResponseJudgementSupport.verifies(
                signature, by: key, authData: authData, clientDataHash: clientDataHash)
            report.expect(
                check, valid,
                observed: "\"packed\" x5c (\(certificates.count) certificates), signature "
                    + (valid ? "verifies with the leaf key (chain not verified)" : "does not verify with the leaf key"))
        } catch {
            report.fail(check, observed: "\"packed\" x5c leaf certificate: \(error)")
        }
    }
}
