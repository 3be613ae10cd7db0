import Crypto
import Foundation
import HybridConformance
import HybridCore
import Testing

/// Broken clients, each caught by the phone-mode check that names its fault; the clean script
/// passes every message check.
@Suite struct PhoneClientFaultTests {
    static let messageChecks = [
        PhoneChecks.handshakeLayout, PhoneChecks.handshakeAccepted, PhoneChecks.transportDecrypts,
        PhoneChecks.transportPadding, PhoneChecks.frameType, PhoneChecks.ctapCanonicalCBOR, PhoneChecks.ctapCommand,
        PhoneChecks.ctapMatchesHint, PhoneChecks.noSilentPreflight, PhoneChecks.oneRequest,
        PhoneChecks.shutdownAfterReply,
    ]

    @Test func catalogueIDsAreUniqueAndNamedForTheMode() {
        let ids = PhoneChecks.all.map(\.id)
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.hasPrefix("phone.") })
    }

    @Test func cleanScriptPassesEveryMessageCheck() throws {
        let report = try ScriptedClient.run(ScriptedClient.Script())
        for check in Self.messageChecks {
            #expect(
                report.result(for: check.id)?.outcome == .pass,
                "\(check.id): \(report.result(for: check.id)?.observed ?? "-")")
        }
    }

    /// One scripted fault and the check that must fail for it.
    struct Fault: CustomTestStringConvertible, Sendable {
        let name: String
        let check: ConformanceCheck
        let script: @Sendable () -> ScriptedClient.Script
        var testDescription: String { name }
    }

    static let faults: [Fault] = [
        Fault(name: "msg1 with a trailing byte", check: PhoneChecks.handshakeLayout) {
            var script = ScriptedClient.Script()
            script.message1 = { $0 + [0x00] }
            return script
        },
        Fault(name: "handshake under another identity key", check: PhoneChecks.handshakeAccepted) {
            var script = ScriptedClient.Script()
            script.wrongIdentity = true
            return script
        },
        Fault(name: "padded 32 bytes too long", check: PhoneChecks.transportPadding) {
            var script = ScriptedClient.Script()
            script.pad = { message in
                let zeros = 63 - message.count % 32
                return message + [UInt8](repeating: 0, count: zeros) + [UInt8(zeros)]
            }
            return script
        },
        Fault(name: "non-zero padding bytes", check: PhoneChecks.transportPadding) {
            var script = ScriptedClient.Script()
            script.pad = { message in
                var padded = ScriptedClient.pad(message)
                padded[message.count] = 0xEE
                return padded
            }
            return script
        },
        Fault(name: "an update (02) from the client", check: PhoneChecks.frameType) {
            var script = ScriptedClient.Script()
            script.messages = [[0x02, 0xA0], ScriptedClient.makeCredential, nil, [0x00]]
            return script
        },
        Fault(name: "non-canonical CTAP CBOR (unsorted keys)", check: PhoneChecks.ctapCanonicalCBOR) {
            var script = ScriptedClient.Script()
            // {2: 0, 1: 0}: keys out of order.
            script.messages = [[0x01, 0x01, 0xA2, 0x02, 0x00, 0x01, 0x00], nil, [0x00]]
            return script
        },
        Fault(name: "non-canonical CTAP CBOR (non-minimal integer)", check: PhoneChecks.ctapCanonicalCBOR) {
            var script = ScriptedClient.Script()
            // {1: 0} with the key written as 0x18 0x01.
            script.messages = [[0x01, 0x01, 0xA1, 0x18, 0x01, 0x00], nil, [0x00]]
            return script
        },
        Fault(name: "getInfo over the tunnel", check: PhoneChecks.ctapCommand) {
            var script = ScriptedClient.Script()
            script.messages = [[0x01, 0x04], nil, [0x00]]
            return script
        },
        Fault(name: "a silent preflight (up = false)", check: PhoneChecks.noSilentPreflight) {
            var script = ScriptedClient.Script()
            let preflight = CBOREncoder.encode(
                .map([
                    CBORMapEntry(1, .text("example.com")), CBORMapEntry(2, .bytes([UInt8](repeating: 1, count: 32))),
                    CBORMapEntry(5, .map([CBORMapEntry(.text("up"), .bool(false))])),
                ]))
            script.messages = [[0x01, 0x02] + preflight, nil, [0x00]]
            return script
        },
        Fault(name: "two requests", check: PhoneChecks.oneRequest) {
            var script = ScriptedClient.Script()
            script.messages = [ScriptedClient.makeCredential, nil, ScriptedClient.makeCredential, nil, [0x00]]
            return script
        },
        Fault(name: "no shutdown after the reply", check: PhoneChecks.shutdownAfterReply) {
            var script = ScriptedClient.Script()
            script.messages = [ScriptedClient.makeCredential, nil]
            return script
        },
        Fault(name: "shutdown with a payload", check: PhoneChecks.shutdownAfterReply) {
            var script = ScriptedClient.Script()
            script.messages = [ScriptedClient.makeCredential, nil, [0x00, 0x00]]
            return script
        },
    ]

    @Test(arguments: faults) func faultIsCaughtByItsCheck(_ fault: Fault) throws {
        let report = try ScriptedClient.run(fault.script())
        let result = report.result(for: fault.check.id)
        #expect(result?.outcome == .fail, "\(fault.name): \(result?.observed ?? "not run")")
        #expect(!report.succeeded)
    }

    @Test func requestOtherThanTheHintIsAWarning() throws {
        let report = try ScriptedClient.run(ScriptedClient.Script(), hint: .getAssertion)
        #expect(report.result(for: PhoneChecks.ctapMatchesHint.id)?.outcome == .warn)
        #expect(report.succeeded)
    }
}
