import HybridCTAP
import HybridCore

/// Judges the authenticator's getInfo from its post-handshake message (CTAP 2.2 §6.4).
package enum GetInfoJudgement {
    /// Records the getInfo checks into `report` and returns the parsed getInfo, if it parses.
    @discardableResult
    package static func judge(_ getInfo: [UInt8]?, into report: inout ConformanceReport)
        -> AuthenticatorGetInfoResponse?
    {
        let checks = [
            ClientChecks.getInfoCanonical, ClientChecks.getInfoVersions, ClientChecks.getInfoAAGUID,
            ClientChecks.getInfoOptions, ClientChecks.getInfoWellFormed,
        ]
        guard let getInfo else {
            for check in checks { report.skip(check, because: "no getInfo in the post-handshake message") }
            return nil
        }
        let decoded = Result { () throws(CBORError) in try CBORDecoder.decode(getInfo) }
        guard case .success(let map) = decoded, map.mapEntries != nil else {
            let problem = if case .failure(let error) = decoded { "\(error)" } else { "not a map" }
            report.fail(ClientChecks.getInfoCanonical, observed: "\(getInfo.count) bytes: \(problem)")
            for check in checks.dropFirst() { report.skip(check, because: "getInfo is not a canonical CBOR map") }
            return nil
        }
        report.pass(ClientChecks.getInfoCanonical, observed: "\(getInfo.count) bytes, keys \(keys(map))")

        let versions = map[intKey: 1]?.arrayValue
        let versionTexts = versions?.compactMap(\.textValue) ?? []
        let versionsOK =
            versions != nil && !versionTexts.isEmpty && versionTexts.count == versions?.count
            && versionTexts.contains { $0.hasPrefix("FIDO_2_") }
        report.expect(
            ClientChecks.getInfoVersions, versionsOK,
            observed: versions == nil ? "key 1 absent or not an array" : "versions \(versionTexts)")

        let aaguid = map[intKey: 3]?.bytesValue
        report.expect(
            ClientChecks.getInfoAAGUID, aaguid?.count == 16,
            observed: aaguid.map { "aaguid \(Hex.encode($0))" } ?? "key 3 absent or not bytes")

        if let field = map[intKey: 4] {
            let options = field.mapEntries
            let optionsOK = options?.allSatisfy { $0.key.textValue != nil && $0.value.boolValue != nil } ?? false
            report.expect(
                ClientChecks.getInfoOptions, optionsOK, observed: options.map { describe($0) } ?? "key 4 is not a map")
        } else {
            // CTAP lets options default; every phone sends them, and browsers read rk and uv there.
            report.record(ClientChecks.getInfoOptions, .warn, observed: "key 4 absent: every option takes its default")
        }

        do {
            let info = try AuthenticatorGetInfoResponse(cbor: map)
            report.pass(ClientChecks.getInfoWellFormed, observed: "parsed strictly")
            return info
        } catch {
            report.fail(ClientChecks.getInfoWellFormed, observed: "\(error)")
            return nil
        }
    }

    private static func keys(_ map: CBORValue) -> String {
        "[" + (map.mapEntries ?? []).map { $0.key.intValue.map(String.init) ?? "?" }.joined(separator: ", ") + "]"
    }

    private static func describe(_ entries: [CBORMapEntry]) -> String {
        "options {"
            + entries.map { "\($0.key.textValue ?? "?"): \($0.value.boolValue.map(String.init) ?? "?")" }
            .joined(separator: ", ") + "}"
    }
}
