// HybridClient's and HybridSecurityKey's parsers: the WebAuthn options JSON, CTAPHID packets and
// the CTAPHID state machine.
import FuzzDriver

runFuzzer([
    "creationOptions": { WebAuthnOptionsTargets.creationOptions($0) },
    "requestOptions": { WebAuthnOptionsTargets.requestOptions($0) },
    "ctaphidPacket": { CTAPHIDTargets.packet($0) },
    "ctaphidStateMachine": { CTAPHIDTargets.stateMachine($0) },
])
