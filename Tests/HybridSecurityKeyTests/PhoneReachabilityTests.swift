import HybridCTAP
import HybridClient
import HybridCore
import Testing

@testable import HybridSecurityKey

/// The key without a Bluetooth adapter: a request waiting for the phone fails at once when the
/// adapter goes (CTAP1_ERR_OTHER, the adapter's error in the event), requests that need the phone
/// are refused at once while it is gone (no QR code: no phone could answer it), requests the key
/// answers itself still work, and the adapter's return lets requests through again. The manual
/// clock never moves: nothing here waits for a timeout.
@Suite(.timeLimit(.minutes(5))) struct PhoneReachabilityTests {
    static let gone = "Bluetooth adapter hci1 is down: power it on (`bluetoothctl power on` or `hciconfig hci1 up`)"

    /// The core reports a change once, and only a change (the adapter watch may report the same
    /// state again).
    @Test func theCoreReportsOnlyChanges() {
        var machine = SecurityKeyStateMachine()
        #expect(machine.phoneReachabilityChanged(unreachableBecause: nil, at: .zero).isEmpty)
        #expect(
            machine.phoneReachabilityChanged(unreachableBecause: Self.gone, at: .zero)
                == [.event(.phoneReachability(unreachableBecause: Self.gone))])
        #expect(machine.phoneReachabilityChanged(unreachableBecause: Self.gone, at: .zero).isEmpty)
        #expect(
            machine.phoneReachabilityChanged(unreachableBecause: nil, at: .zero)
                == [.event(.phoneReachability(unreachableBecause: nil))])
    }

    @Test func theAdapterGoingAwayFailsTheWaitingRequestAtOnce() async throws {
        let harness = BridgeHarness([.waitForCancel])
        let channel = try await harness.allocate()
        var events = harness.events.makeAsyncIterator()
        await harness.send(.cbor, SecurityKeyBridgeTests.getAssertion(rp: "github.com"), on: channel)
        #expect(await events.next() == .forwarding(command: .getAssertion, rpID: "github.com"))
        #expect(await events.next() == .ceremony(.qr(url: "FIDO:/0")))
        await harness.bridge.phoneReachabilityChanged(unreachableBecause: Self.gone)
        #expect(
            try await harness.nextMessage()
                == CTAPHIDMessage(channel: channel, command: .cbor, payload: [CTAPStatusCode.other.rawValue]))
        var cancellations = harness.phone.cancellations.makeAsyncIterator()
        #expect(await cancellations.next() != nil)  // the phone ceremony's task was cancelled
        #expect(await events.next() == .phoneReachability(unreachableBecause: Self.gone))
        guard case .failed(.getAssertion, .other, let message)? = await events.next() else {
            Issue.record("no failed event for the waiting request")
            return
        }
        #expect(message.contains("hci1 is down"), "\(message)")
    }

    @Test func requestsAreRefusedAtOnceWithoutAQRCodeWhileTheAdapterIsGone() async throws {
        let harness = BridgeHarness([.reply(SecurityKeyBridgeTests.phoneReply)])
        let channel = try await harness.allocate()
        var events = harness.events.makeAsyncIterator()
        await harness.bridge.phoneReachabilityChanged(unreachableBecause: Self.gone)
        #expect(await events.next() == .phoneReachability(unreachableBecause: Self.gone))
        await harness.send(.cbor, SecurityKeyBridgeTests.makeCredential(), on: channel)
        #expect(
            try await harness.nextMessage()
                == CTAPHIDMessage(channel: channel, command: .cbor, payload: [CTAPStatusCode.other.rawValue]))
        // Refused before it is forwarded: no `forwarding` event, only the refusal.
        guard case .failed(.makeCredential, .other, let message)? = await events.next() else {
            Issue.record("the refusal was not reported")
            return
        }
        #expect(message.contains("hci1 is down"), "\(message)")
        #expect(harness.phone.requests.isEmpty, "the phone (and its QR code) was not asked")

        // getInfo needs no phone: still answered.
        await harness.send(.cbor, [CTAPCommand.getInfo.rawValue], on: channel)
        #expect(try await harness.nextMessage().payload.first == CTAPStatusCode.ok.rawValue)

        // The adapter is back: the next request goes to the phone, without a restart.
        await harness.bridge.phoneReachabilityChanged(unreachableBecause: nil)
        await harness.send(.cbor, SecurityKeyBridgeTests.makeCredential(), on: channel)
        #expect(try await harness.nextMessage().payload == SecurityKeyBridgeTests.phoneReply)
        #expect(harness.phone.requests.count == 1)
    }

    @Test func repeatedReportsOfTheSameStateChangeNothing() async throws {
        let harness = BridgeHarness([.waitForCancel])
        let channel = try await harness.allocate()
        var events = harness.events.makeAsyncIterator()
        await harness.bridge.phoneReachabilityChanged(unreachableBecause: nil)
        await harness.send(.cbor, SecurityKeyBridgeTests.getAssertion(), on: channel)
        // The first event is the request's, not a reachability change.
        guard case .forwarding? = await events.next() else {
            Issue.record("a report of the unchanged state produced an event")
            return
        }
    }
}
