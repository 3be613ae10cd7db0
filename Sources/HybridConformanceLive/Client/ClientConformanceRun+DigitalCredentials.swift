import HybridClient
import HybridConformance
import HybridCore
import Synchronization

extension ClientConformanceRun {
    /// The digital-credential probes (protocol.md §7.8), each in its own `dcp` QR ceremony: a valid
    /// request, malformed JSON, a `credential.create` request, a request one byte over the bound,
    /// and a valid request again. A phone without `"dc"` gets only the first (nothing is sent).
    func digitalCredentialProbes(
        events: @escaping @Sendable (HybridClientEvent) -> Void
    ) async throws -> [DigitalCredentialJudgement.Probe] {
        let origin = "https://" + rpID
        let valid = DigitalCredentialProbeRequests.valid(origin: origin)
        let requests: [(String, [UInt8])] = [
            ("valid", valid),
            ("malformed JSON", Array(#"{"origin":"\#(origin)","request":{"digital":{"requests":[{"#.utf8)),
            (
                "requestType credential.create",
                DigitalCredentialProbeRequests.valid(origin: origin, type: "credential.create")
            ),
            ("oversized", DigitalCredentialProbeRequests.oversized(origin: origin)),
            ("valid again", valid),
        ]
        var probes: [DigitalCredentialJudgement.Probe] = []
        for (name, bytes) in requests {
            let probe = try await digitalCredentialProbe(name, bytes, events: events)
            probes.append(probe)
            if name == "valid", probe.features.map({ !$0.contains(.digitalCredentials) }) ?? true { break }
        }
        return probes
    }

    private func digitalCredentialProbe(
        _ name: String, _ request: [UInt8], events: @escaping @Sendable (HybridClientEvent) -> Void
    ) async throws -> DigitalCredentialJudgement.Probe {
        let features = Mutex<[HybridFeature]?>(nil)
        var probe = DigitalCredentialJudgement.Probe(name: name)
        do {
            probe.reply = try await HybridClientRunner(options: clientOptions).carryJSON(events: events) {
                postHandshake, _ in
                features.withLock { $0 = postHandshake.effectiveFeatures }
                return request
            } finish: { reply, _ in
                reply
            }
        } catch is CancellationError {
            throw CancellationError()
        } catch HybridClientError.digitalCredentialsUnsupported {
            features.withLock { $0 = [] }
            probe.failure = "the phone does not offer \"dc\""
        } catch {
            probe.failure = "\(error)"
        }
        probe.features = features.withLock { $0 }
        return probe
    }
}

/// The requests the digital-credential probes send.
enum DigitalCredentialProbeRequests {
    /// An OpenID4VP request for one mdoc element, as Chromium would send it for `origin`.
    static func valid(origin: String, type: String = "credential.get") -> [UInt8] {
        Array(
            (#"{"origin":"\#(origin)","request":{"digital":{"requests":[{"data":{"dcql_query":{"credentials":"#
                + #"[{"claims":[{"path":["org.iso.18013.5.1","age_over_18"]}],"format":"mso_mdoc","id":"mdl","#
                + #""meta":{"doctype_value":"org.iso.18013.5.1.mDL"}}]},"nonce":"conformance-nonce","#
                + #""response_type":"vp_token"},"protocol":"openid4vp-v1-unsigned"}]}},"requestType":"\#(type)"}"#)
                .utf8)
    }

    /// A well-formed request one byte larger than the envelope bound (it still fits one tunnel message).
    static func oversized(origin: String) -> [UInt8] {
        let head = Array(#"{"origin":"\#(origin)","request":{"digital":{"requests":[{"data":{"pad":""#.utf8)
        let tail = Array(#""},"protocol":"p"}]}},"requestType":"credential.get"}"#.utf8)
        let padding = DigitalCredentialEnvelopeLimits.maxBytes + 1 - head.count - tail.count
        return head + [UInt8](repeating: 0x61, count: padding) + tail
    }
}
