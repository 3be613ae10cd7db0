// Feeds a CTAPHID INIT report, as a program such as libfido2 writes it to the HID device, into the
// sans-IO state machine and reads the device's answer. Time is a parameter, never a clock.
import HybridSecurityKey

var machine = CTAPHIDStateMachine()

// CTAPHID_INIT on the broadcast channel with an 8-byte nonce (CTAP 2.2 §11.2.9.1.3).
let nonce: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
let request = CTAPHIDMessage(channel: CTAPHIDPacket.broadcastChannel, command: .initialize, payload: nonce)
for report in request.reports {
    for action in machine.reportReceived(report, at: .zero) {
        switch action {
        case .send(let message):
            // The answer: the nonce, then the new channel ID the program uses from now on.
            print("\(message.command) on \(message.channel): \(message.payload)")
            for answer in message.reports { _ = answer }  // each 64-byte report goes to the host
        case .startRequest(let channel, let payload):
            // A CTAPHID_CBOR request: run it (e.g. on the phone), keep its program waiting with
            // KEEPALIVE at most every 100 ms (CTAP 2.2 §11.2.9.1.4), pass its channel as
            // `requestInFlight` with every report until then, and send its answer as a
            // CTAPHID_CBOR message on that channel.
            print("request on \(channel): \(payload.count) bytes")
        case .reject(let rejection):
            print("rejected: \(rejection.error)")
        case .cancelRequest, .wink, .ignore:
            break
        }
    }
}
// Timers: call `tick(at:)` at `machine.nextDeadline` to time out stalled messages.
_ = machine.nextDeadline
