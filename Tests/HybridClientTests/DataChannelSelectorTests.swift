import Crypto
import HybridClient
import HybridCore
import Testing

/// A clock for the selector: whole milliseconds, moved by hand.
private struct TestInstant: InstantProtocol, Sendable {
    var milliseconds: Int64
    func advanced(by duration: Duration) -> TestInstant {
        TestInstant(
            milliseconds: milliseconds + duration.components.seconds * 1000 + duration.components.attoseconds
                / 1_000_000_000_000_000)
    }
    func duration(to other: TestInstant) -> Duration { .milliseconds(other.milliseconds - milliseconds) }
    static func < (lhs: TestInstant, rhs: TestInstant) -> Bool { lhs.milliseconds < rhs.milliseconds }
}

private typealias Selector = DataChannelSelector<TestInstant>

/// The channel choice and its fallback (protocol.md §3.4): if the connection fails within a short,
/// configurable time, the client falls back to the tunnel named in the advert.
@Suite struct DataChannelSelectorTests {
    private let start = TestInstant(milliseconds: 1_000)
    private let deadline = TestInstant(milliseconds: 4_000)

    @Test func autoWithoutPSMUsesTheTunnel() {
        var selector = Selector(mode: .auto, l2capTimeout: .seconds(3))
        #expect(selector.advertMatched(psm: nil, at: start) == [.connectTunnel])
        #expect(selector.tunnelConnected() == [.use(.tunnel)])
        #expect(selector.chosen == .tunnel)
    }

    @Test func autoWithPSMTriesL2CAPFirst() {
        var selector = Selector(mode: .auto, l2capTimeout: .seconds(3))
        #expect(selector.advertMatched(psm: 130, at: start) == [.connectL2CAP(psm: 130, deadline: deadline)])
        #expect(selector.timePassed(TestInstant(milliseconds: 3_999)) == [])
        #expect(selector.l2capConnected(at: TestInstant(milliseconds: 3_999)) == [.use(.l2cap)])
        #expect(selector.chosen == .l2cap)
        #expect(selector.timePassed(TestInstant(milliseconds: 9_000)) == [])
    }

    /// Once the channel is in use, its first message is due within the L2CAP timeout: a silent
    /// stranger on the advertised PSM is given up for the tunnel (`auto`) or fails (`l2cap`).
    @Test(arguments: [DataChannelMode.auto, .l2cap])
    func aSilentL2CAPChannelIsGivenUpAtItsFirstMessageDeadline(mode: DataChannelMode) {
        var selector = Selector(mode: mode, l2capTimeout: .seconds(3))
        _ = selector.advertMatched(psm: 130, at: start)
        #expect(selector.l2capConnected(at: TestInstant(milliseconds: 2_000)) == [.use(.l2cap)])
        #expect(selector.l2capFirstMessageDeadline == TestInstant(milliseconds: 5_000))
        #expect(selector.l2capSilent(at: TestInstant(milliseconds: 4_999)) == [])
        let last: Selector.Action = mode == .auto ? .connectTunnel : .fail(.l2capUnavailable)
        #expect(
            selector.l2capSilent(at: TestInstant(milliseconds: 5_000)) == [
                .abandonL2CAP, .l2capUnavailable(.noHandshake(limit: .seconds(3))), last,
            ])
        #expect(selector.l2capSilent(at: TestInstant(milliseconds: 9_000)) == [], "once")
    }

    /// A session over the L2CAP channel that fails before its handshake completed: `auto` uses
    /// the tunnel, whatever the error (the advert's PSM is not authenticated, protocol.md §3.4);
    /// `l2cap` fails for the channel's own reason and lets any other error stand.
    @Test func aSessionFailureBeforeTheHandshakeFallsBackOnlyUnderAuto() {
        func inUse(_ mode: DataChannelMode) -> Selector {
            var selector = Selector(mode: mode, l2capTimeout: .seconds(3))
            _ = selector.advertMatched(psm: 130, at: start)
            _ = selector.l2capConnected(at: TestInstant(milliseconds: 2_000))
            return selector
        }
        var auto = inUse(.auto)
        #expect(
            auto.l2capSessionFailed(nil, describedAs: "closed", handshakeComplete: false) == [
                .l2capUnavailable(.connectFailed("closed")), .connectTunnel,
            ])
        #expect(auto.tunnelConnected() == [.use(.tunnel)])
        var silentAuto = inUse(.auto)
        #expect(
            silentAuto.l2capSessionFailed(.noHandshake(limit: .seconds(3)), describedAs: "-", handshakeComplete: false)
                == [.l2capUnavailable(.noHandshake(limit: .seconds(3))), .connectTunnel])
        var l2cap = inUse(.l2cap)
        #expect(l2cap.l2capSessionFailed(nil, describedAs: "closed", handshakeComplete: false) == [])
        #expect(
            l2cap.l2capSessionFailed(.noHandshake(limit: .seconds(3)), describedAs: "-", handshakeComplete: false)
                == [.l2capUnavailable(.noHandshake(limit: .seconds(3))), .fail(.l2capUnavailable)])
    }

    /// After the handshake the session's secrets are in use: no fallback in any mode.
    @Test(arguments: [DataChannelMode.auto, .l2cap])
    func aSessionFailureAfterTheHandshakeNeverFallsBack(mode: DataChannelMode) {
        var selector = Selector(mode: mode, l2capTimeout: .seconds(3))
        _ = selector.advertMatched(psm: 130, at: start)
        _ = selector.l2capConnected(at: TestInstant(milliseconds: 2_000))
        #expect(selector.l2capSessionFailed(nil, describedAs: "closed", handshakeComplete: true) == [])
        #expect(
            selector.l2capSessionFailed(.noHandshake(limit: .seconds(3)), describedAs: "-", handshakeComplete: true)
                == [.l2capUnavailable(.noHandshake(limit: .seconds(3))), .fail(.l2capUnavailable)])
        #expect(selector.tunnelConnected() == [], "no tunnel was asked for")
    }

    /// A channel whose first message came in time keeps going, however long the ceremony takes.
    @Test func anL2CAPChannelThatSpokeIsKept() {
        var selector = Selector(mode: .auto, l2capTimeout: .seconds(3))
        _ = selector.advertMatched(psm: 130, at: start)
        _ = selector.l2capConnected(at: TestInstant(milliseconds: 2_000))
        selector.l2capMessageReceived()
        #expect(selector.l2capFirstMessageDeadline == nil)
        #expect(selector.l2capSilent(at: TestInstant(milliseconds: 60_000)) == [])
        #expect(selector.chosen == .l2cap)
    }

    @Test func autoFallsBackWhenL2CAPFails() {
        var selector = Selector(mode: .auto, l2capTimeout: .seconds(3))
        _ = selector.advertMatched(psm: 130, at: start)
        #expect(
            selector.l2capFailed("connection refused", at: TestInstant(milliseconds: 1_200)) == [
                .abandonL2CAP, .l2capUnavailable(.connectFailed("connection refused")), .connectTunnel,
            ])
        #expect(selector.tunnelConnected() == [.use(.tunnel)])
    }

    @Test func autoFallsBackAtTheDeadlineAndDropsALateChannel() {
        var selector = Selector(mode: .auto, l2capTimeout: .seconds(3))
        _ = selector.advertMatched(psm: 130, at: start)
        #expect(
            selector.timePassed(deadline) == [
                .abandonL2CAP, .l2capUnavailable(.timedOut(limit: .seconds(3))), .connectTunnel,
            ])
        #expect(selector.l2capConnected(at: TestInstant(milliseconds: 4_500)) == [.abandonL2CAP])
        #expect(selector.tunnelConnected() == [.use(.tunnel)])
        #expect(selector.chosen == .tunnel)
    }

    @Test func aConnectionReportedAtTheDeadlineIsTooLate() {
        var selector = Selector(mode: .auto, l2capTimeout: .seconds(3))
        _ = selector.advertMatched(psm: 130, at: start)
        #expect(
            selector.l2capConnected(at: deadline) == [
                .abandonL2CAP, .l2capUnavailable(.timedOut(limit: .seconds(3))), .connectTunnel,
            ])
    }

    @Test func tunnelModeIgnoresThePSM() {
        var selector = Selector(mode: .tunnel, l2capTimeout: .seconds(3))
        #expect(selector.advertMatched(psm: 130, at: start) == [.connectTunnel])
    }

    @Test func l2capModeNeverFallsBack() {
        var noPSM = Selector(mode: .l2cap, l2capTimeout: .seconds(3))
        #expect(
            noPSM.advertMatched(psm: nil, at: start) == [.l2capUnavailable(.phoneOfferedNone), .fail(.noPSMInAdvert)])

        var refused = Selector(mode: .l2cap, l2capTimeout: .seconds(3))
        _ = refused.advertMatched(psm: 130, at: start)
        #expect(
            refused.l2capFailed("host is down", at: start) == [
                .abandonL2CAP, .l2capUnavailable(.connectFailed("host is down")), .fail(.l2capUnavailable),
            ])
        #expect(refused.tunnelConnected() == [])

        var slow = Selector(mode: .l2cap, l2capTimeout: .seconds(3))
        _ = slow.advertMatched(psm: 130, at: start)
        #expect(
            slow.timePassed(deadline) == [
                .abandonL2CAP, .l2capUnavailable(.timedOut(limit: .seconds(3))), .fail(.l2capUnavailable),
            ])
        #expect(slow.chosen == nil)
    }

    @Test func anAdvertWithoutPSMAfterAnOfferSaysThePhoneOfferedNone() {
        var offered = Selector(mode: .auto, l2capTimeout: .seconds(3), offeredL2CAP: true)
        #expect(offered.advertMatched(psm: nil, at: start) == [.l2capUnavailable(.phoneOfferedNone), .connectTunnel])
        // Not offered: the reason was given with the QR code; the advert adds none.
        var notOffered = Selector(mode: .auto, l2capTimeout: .seconds(3), offeredL2CAP: false)
        #expect(notOffered.advertMatched(psm: nil, at: start) == [.connectTunnel])
    }

    @Test func everyFallbackReasonNamesACause() {
        for reason: L2CAPUnavailableReason in [
            .adapterNotReadable("Bluetooth adapter hci1 not found"), .noLEConnections, .noExtendedAdvertReception,
            .phoneOfferedNone, .connectFailed("connection refused"), .timedOut(limit: .seconds(3)),
        ] {
            #expect(reason.description.contains("L2CAP") || reason.description.contains("LE"), "\(reason)")
        }
        #expect(L2CAPUnavailableReason.noLEConnections.description.contains("btmgmt le on"))
        #expect(L2CAPUnavailableReason.timedOut(limit: .seconds(3)).description.contains("--l2cap-timeout"))
    }

    @Test func onlyTheFirstAdvertCounts() {
        var selector = Selector(mode: .auto, l2capTimeout: .milliseconds(500))
        #expect(
            selector.advertMatched(psm: 130, at: start) == [
                .connectL2CAP(psm: 130, deadline: TestInstant(milliseconds: 1_500))
            ])
        #expect(selector.advertMatched(psm: 131, at: start) == [])
    }
}

/// QR key 6 (protocol.md §1.3): `[0, 1]` only when the adapter can do LE connections and receive
/// extended adverts; never otherwise, since Play Services before CTAP 2.3 rejects an array.
@Suite struct QRChannelOfferTests {
    private let able = BluetoothCapabilities(leConnections: true, extendedAdvertisingReception: true)

    @Test func anAbleAdapterOffersTunnelAndL2CAP() throws {
        #expect(try QRChannelOffer.channels(mode: .auto, capabilities: able)?.map(\.rawValue) == [0, 1])
        #expect(try QRChannelOffer.channels(mode: .l2cap, capabilities: able)?.map(\.rawValue) == [0, 1])
    }

    @Test func tunnelModeSendsNoKey6() throws {
        #expect(try QRChannelOffer.channels(mode: .tunnel, capabilities: able) == nil)
    }

    @Test func theAbilitiesSayWhyNoChannelIsOffered() {
        #expect(able.l2capUnavailableReason == nil)
        #expect(
            BluetoothCapabilities(leConnections: false, extendedAdvertisingReception: true).l2capUnavailableReason
                == .noLEConnections)
        #expect(
            BluetoothCapabilities(leConnections: true, extendedAdvertisingReception: false).l2capUnavailableReason
                == .noExtendedAdvertReception)
        #expect(
            BluetoothCapabilities(
                leConnections: false, extendedAdvertisingReception: false, readFailure: "permission denied"
            ).l2capUnavailableReason == .adapterNotReadable("permission denied"))
        // The simulated air: no adapter, nothing to fix, no reason.
        #expect(BluetoothCapabilities.notApplicable.l2capUnavailableReason == nil)
    }

    @Test func anAdapterMissingEitherAbilitySendsNoKey6() throws {
        for (capabilities, why) in [
            (
                BluetoothCapabilities(leConnections: false, extendedAdvertisingReception: true),
                L2CAPUnavailableReason.noLEConnections
            ),
            (
                BluetoothCapabilities(leConnections: true, extendedAdvertisingReception: false),
                .noExtendedAdvertReception
            ),
            (BluetoothCapabilities(leConnections: false, extendedAdvertisingReception: false), .noLEConnections),
            (BluetoothCapabilities.notApplicable, .adapterNotReadable("no Bluetooth adapter is involved")),
        ] {
            #expect(try QRChannelOffer.channels(mode: .auto, capabilities: capabilities) == nil)
            #expect(throws: DataChannelSelectionError.adapterCannotOfferL2CAP(why)) {
                try QRChannelOffer.channels(mode: .l2cap, capabilities: capabilities)
            }
        }
    }

    @Test func theOfferIsWrittenAsACBORArrayAtKey6() throws {
        let payload = QRCodePayload(
            identityKey: P256.KeyAgreement.PrivateKey().publicKey,
            secret: QRSecret(bytes: [UInt8](repeating: 1, count: 16))!,
            timestamp: 0, requestType: .getAssertion,
            channels: try QRChannelOffer.channels(mode: .auto, capabilities: able))
        // Key 6 → array [0, 1]: 06 82 00 01 (RFC 8949 major types 0 and 4), the last entry.
        #expect(payload.cbor.suffix(4) == [0x06, 0x82, 0x00, 0x01])
    }
}
