import HybridClient
import HybridConformance

extension ClientConformanceRun {
    /// The two ceremonies that ``SequenceLimitJudgement`` judges, each with its own QR code: a
    /// getInfo after 2^24 − 1 empty client updates, then one sealed past the limit after 2^24. They
    /// run over the tunnel (2^24 messages over BLE L2CAP would take hours), each with `time` more
    /// than ``clientOptions``' limit.
    func sequenceLimitProbes(
        time: Duration, events: @escaping @Sendable (HybridClientEvent) -> Void
    ) async throws -> (atLimit: CeremonyTranscript, pastLimit: CeremonyTranscript) {
        var options = clientOptions
        options.timeout += time
        options.channel = .tunnel
        var atLimit = HybridSessionSetup.Deviations.none
        atLimit.updatesBeforeRequest = SequenceLimitJudgement.updatesAtLimit
        var pastLimit = HybridSessionSetup.Deviations.none
        pastLimit.updatesBeforeRequest = SequenceLimitJudgement.updatesPastLimit
        pastLimit.sealsRequestIgnoringSequenceLimit = true
        var transcripts: [CeremonyTranscript] = []
        for (name, deviations) in [("getInfoAtSequenceLimit", atLimit), ("getInfoPastSequenceLimit", pastLimit)] {
            transcripts.append(
                try await ceremony(
                    name, requestType: .getAssertion, options: options, deviations: deviations, events: events
                ) { _ in SequenceLimitJudgement.request })
        }
        return (transcripts[0], transcripts[1])
    }
}
