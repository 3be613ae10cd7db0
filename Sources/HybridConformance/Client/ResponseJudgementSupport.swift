import Crypto
import HybridCTAP
import HybridCore

/// The steps makeCredential and getAssertion responses share: status, canonical CBOR, and the
/// authenticator data's rpIdHash and flags.
enum ResponseJudgementSupport {
    /// The checks of one response kind, in report order.
    struct Checks {
        var status: ConformanceCheck
        var canonical: ConformanceCheck
        var response: ConformanceCheck
        var authData: ConformanceCheck
        var rpIDHash: ConformanceCheck
        var flags: ConformanceCheck
    }

    /// Judges status and canonical CBOR; returns the response map, or records skips for `later`.
    static func body(
        _ reply: [UInt8]?, checks: Checks, later: [ConformanceCheck], into report: inout ConformanceReport
    ) -> CBORValue? {
        let rest = [checks.canonical, checks.response, checks.authData, checks.rpIDHash, checks.flags] + later
        guard let reply, let status = reply.first else {
            report.fail(checks.status, observed: "no reply")
            for check in rest { report.skip(check, because: "no reply") }
            return nil
        }
        let code = CTAPStatusCode(rawValue: status)
        guard code.isSuccess, reply.count > 1 else {
            report.fail(checks.status, observed: code.isSuccess ? "status 00 without a response map" : "status \(code)")
            for check in rest { report.skip(check, because: "no response map") }
            return nil
        }
        report.pass(checks.status, observed: "status 00, \(reply.count - 1) bytes of CBOR")
        let decoded = Result { () throws(CBORError) in try CBORDecoder.decode(reply.dropFirst()) }
        guard case .success(let body) = decoded, body.mapEntries != nil else {
            let problem = if case .failure(let error) = decoded { "\(error)" } else { "not a map" }
            report.fail(checks.canonical, observed: problem)
            for check in rest.dropFirst() { report.skip(check, because: "the response is not canonical CBOR") }
            return nil
        }
        report.pass(checks.canonical, observed: "one canonical map")
        return body
    }

    /// Judges rpIdHash and flags from the raw authenticator data (they are readable even when the
    /// rest does not parse), then parses it strictly for the layout check.
    static func authenticatorData(
        _ bytes: [UInt8], rpID: String, attested: Bool, getInfo: AuthenticatorGetInfoResponse?, checks: Checks,
        into report: inout ConformanceReport
    ) -> AuthenticatorData? {
        let parsed = Result { () throws(CTAPError) in try AuthenticatorData(bytes: bytes) }
        var layoutProblem: String?
        switch parsed {
        case .failure(let error): layoutProblem = "\(bytes.count) bytes: \(error)"
        case .success(let data) where attested && data.attestedCredentialData == nil:
            layoutProblem = "AT clear: no attested credential data"
        case .success(let data) where !attested && data.attestedCredentialData != nil:
            layoutProblem = "attested credential data in an assertion"
        case .success(let data):
            let ext = data.extensions.map { " + extensions (\(CBOREncoder.encode($0).count) bytes)" } ?? ""
            layoutProblem = nil
            report.pass(
                checks.authData,
                observed: "\(bytes.count) bytes" + (attested ? " with attested credential data" : "") + ext)
        }
        if let layoutProblem { report.fail(checks.authData, observed: layoutProblem) }

        guard bytes.count >= AuthenticatorData.minimumLength else {
            report.skip(checks.rpIDHash, because: "authData is shorter than 37 bytes")
            report.skip(checks.flags, because: "authData is shorter than 37 bytes")
            return nil
        }
        let hash = Array(bytes[0..<32])
        let expected = AuthenticatorData.rpIDHash(rpID)
        report.expect(
            checks.rpIDHash, hash == expected,
            observed: hash == expected
                ? "SHA-256(\"\(rpID)\")" : "\(Hex.encode(hash)), expected \(Hex.encode(expected))")
        let problems = flagProblems(bytes[32], attested: attested, getInfo: getInfo)
        report.expect(
            checks.flags, problems.isEmpty,
            observed: "flags 0x\(Hex.encode([bytes[32]]))"
                + (problems.isEmpty ? "" : ": " + problems.joined(separator: ", ")))
        return try? parsed.get()
    }

    /// UP set; AT as expected; UV only with a user-verification method; RFU bits (0x02, 0x20) clear;
    /// BS only with BE. ED is checked by the layout (the extensions must be there).
    static func flagProblems(_ raw: UInt8, attested: Bool, getInfo: AuthenticatorGetInfoResponse?) -> [String] {
        let flags = AuthenticatorData.Flags(rawValue: raw)
        var problems: [String] = []
        if !flags.contains(.userPresent) { problems.append("UP clear") }
        if flags.contains(.attestedCredentialData) != attested { problems.append(attested ? "AT clear" : "AT set") }
        let options = getInfo?.options ?? [:]
        if flags.contains(.userVerified), options["uv"] != true, options["clientPin"] != true {
            problems.append("UV set but getInfo offers neither uv nor clientPin")
        }
        if raw & 0x22 != 0 { problems.append("RFU bits set") }
        if flags.contains(.backedUp), !flags.contains(.backupEligible) { problems.append("BS without BE") }
        return problems
    }

    /// Whether `signature` (DER ECDSA) by `key` covers authData ‖ clientDataHash.
    static func verifies(
        _ signature: [UInt8], by key: P256.Signing.PublicKey, authData: [UInt8], clientDataHash: [UInt8]
    ) -> Bool {
        guard let parsed = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
        return key.isValidSignature(parsed, for: authData + clientDataHash)
    }
}
