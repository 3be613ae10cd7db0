/// The stage a running ceremony has reached, shared between the ceremony task (which moves it on)
/// and the timeout task (which reports it).
actor CeremonyStageTracker {
    private(set) var stage: HybridClientStage = .waitingForDevice

    func enter(_ stage: HybridClientStage) {
        self.stage = stage
    }
}
