import HybridCTAP
import HybridClient
import HybridCore
import HybridSecurityKey
import Synchronization
import Testing

/// The bridge's request policy against a scripted phone: what reaches the phone, what is
/// answered locally, cancellation, the cache, failure statuses.
@Suite struct SecurityKeyBridgeTests {
    static func getAssertion(rp: String = "example.com", clientDataHash: UInt8 = 0x11, up: Bool? = nil) -> [UInt8] {
        var entries: [CBORMapEntry] = [
            CBORMapEntry(1, .text(rp)), CBORMapEntry(2, .bytes([UInt8](repeating: clientDataHash, count: 32))),
        ]
        if let up { entries.append(CBORMapEntry(5, .map([CBORMapEntry(.text("up"), .bool(up))]))) }
        return [0x02] + CBOREncoder.encode(.map(entries))
    }

    static func makeCredential(algorithm: Int64 = -7) -> [UInt8] {
        [0x01]
            + CBOREncoder.encode(
                .map([
                    CBORMapEntry(1, .bytes([UInt8](repeating: 0x22, count: 32))),
                    CBORMapEntry(
                        2,
                        .map([
                            CBORMapEntry(.text("id"), .text("example.com")),
                            CBORMapEntry(.text("name"), .text("Example")),
                        ])),
                    CBORMapEntry(3, .map([CBORMapEntry(.text("id"), .bytes([1, 2, 3]))])),
                    CBORMapEntry(
                        4,
                        .array([
                            .map([
                                CBORMapEntry(.text("alg"), .int(algorithm)),
                                CBORMapEntry(.text("type"), .text("public-key")),
                            ])
                        ])),
                ]))
    }

    /// A reply long enough to need continuation packets.
    static let phoneReply: [UInt8] =
        [0x00] + CBOREncoder.encode(.map([CBORMapEntry(2, .bytes([UInt8](repeating: 0xAB, count: 150)))]))

    @Test func getInfoIsAnsweredLocally() async throws {
        let harness = BridgeHarness([])
        let channel = try await harness.allocate()
        await harness.send(.cbor, [0x04], on: channel)
        let message = try await harness.nextMessage()
        #expect(message.command == .cbor)
        #expect(message.payload.first == 0x00)
        let info = try AuthenticatorGetInfoResponse(bytes: message.payload.dropFirst())
        #expect(info.versions.contains("FIDO_2_0"))
        #expect(info.aaguid == SecurityKeyInfo.aaguid)
        #expect(info.options?["uv"] == true && info.options?["rk"] == true && info.options?["up"] == true)
        #expect(info.options?["clientPin"] == nil)
        #expect(info.pinUvAuthProtocols == [1])
        #expect(info.maxMessageSize == 7609)
        #expect((info.maxCredentialCountInList ?? 0) >= 20)  // Firefox (at most 20 IDs) sends one chunk
        #expect(harness.phone.requests.isEmpty)
    }

    @Test func silentProbeNeverStartsACeremony() async throws {
        let harness = BridgeHarness([.reply(Self.phoneReply)])
        let channel = try await harness.allocate()
        await harness.send(.cbor, Self.getAssertion(up: false), on: channel)
        #expect(try await harness.nextMessage().payload == [0x2E])  // CTAP2_ERR_NO_CREDENTIALS
        #expect(harness.phone.requests.isEmpty)
    }

    @Test func unservableAndUnsupportedRequestsNeverStartACeremony() async throws {
        let harness = BridgeHarness([.reply(Self.phoneReply)])
        let channel = try await harness.allocate()
        await harness.send(.cbor, Self.makeCredential(algorithm: -8), on: channel)
        #expect(try await harness.nextMessage().payload == [0x26])  // UNSUPPORTED_ALGORITHM
        await harness.send(.cbor, [0x06, 0xA0], on: channel)  // clientPIN
        #expect(try await harness.nextMessage().payload == [0x01])
        await harness.send(.cbor, [0x08], on: channel)  // getNextAssertion
        #expect(try await harness.nextMessage().payload == [0x30])
        await harness.send(.cbor, [0x02, 0xFF], on: channel)  // not CBOR
        #expect(try await harness.nextMessage().payload == [0x12])
        await harness.send(.cbor, [0x02, 0xA1, 0x01, 0x61, 0x61], on: channel)  // no clientDataHash
        #expect(try await harness.nextMessage().payload == [0x14])
        #expect(harness.phone.requests.isEmpty)
    }

    @Test func forwardedRequestGetsThePhonesBytesUnchanged() async throws {
        let harness = BridgeHarness([.reply(Self.phoneReply)])
        let channel = try await harness.allocate()
        let request = Self.makeCredential()
        await harness.send(.cbor, request, on: channel)
        let message = try await harness.nextMessage()
        #expect(message == CTAPHIDMessage(channel: channel, command: .cbor, payload: Self.phoneReply))
        #expect(harness.phone.requests == [request])
    }

    @Test func cancelEndsTheCeremony() async throws {
        let harness = BridgeHarness([.waitForCancel])
        let channel = try await harness.allocate()
        await harness.send(.cbor, Self.getAssertion(), on: channel)
        await harness.send(.cancel, [], on: channel)
        #expect(try await harness.nextMessage() == CTAPHIDMessage(channel: channel, command: .cbor, payload: [0x2D]))
        var cancellations = harness.phone.cancellations.makeAsyncIterator()
        #expect(await cancellations.next() != nil)  // the phone's task saw the cancellation
    }

    /// The QR window's Cancel: the program gets CTAP2_ERR_KEEPALIVE_CANCEL (0x2D, CTAP 2.2 §8.2.1
    /// status table) as after its own CTAPHID_CANCEL, and the phone's task is cancelled.
    @Test func cancelOnThisComputerAnswersKeepaliveCancel() async throws {
        let harness = BridgeHarness([.waitForCancel])
        let channel = try await harness.allocate()
        await harness.send(.cbor, Self.getAssertion(rp: "github.com"), on: channel)
        var events = harness.events.makeAsyncIterator()
        #expect(await events.next() == .forwarding(command: .getAssertion, rpID: "github.com"))
        await harness.bridge.cancelPhoneCeremonies()
        #expect(try await harness.nextMessage() == CTAPHIDMessage(channel: channel, command: .cbor, payload: [0x2D]))
        var cancellations = harness.phone.cancellations.makeAsyncIterator()
        #expect(await cancellations.next() != nil)
        while let event = await events.next() {
            guard case .failed(let command, let status, _) = event else { continue }
            #expect(command == .getAssertion && status == .keepaliveCancel)
            break
        }
    }

    /// The RP ID the window names: makeCredential's rp.id (key 2), getAssertion's rpId (key 1).
    @Test func relyingPartyIDIsReadFromTheRequest() {
        #expect(BridgeRequestPolicy.relyingPartyID(of: Self.makeCredential()) == "example.com")
        #expect(BridgeRequestPolicy.relyingPartyID(of: Self.getAssertion(rp: "ssh:")) == "ssh:")
        #expect(BridgeRequestPolicy.relyingPartyID(of: [0x04]) == nil)
        #expect(BridgeRequestPolicy.relyingPartyID(of: [0x02, 0xFF]) == nil)
    }

    @Test func closingTheDeviceEndsTheCeremony() async throws {
        let harness = BridgeHarness([.waitForCancel])
        let channel = try await harness.allocate()
        await harness.send(.cbor, Self.getAssertion(), on: channel)
        await harness.bridge.deviceClosed()
        var cancellations = harness.phone.cancellations.makeAsyncIterator()
        #expect(await cancellations.next() != nil)
    }

    @Test func cacheAnswersOnlyTheIdenticalRequest() async throws {
        let harness = BridgeHarness([.reply(Self.phoneReply), .reply([0x00, 0xA0]), .reply([0x00, 0xA1, 0x01, 0x01])])
        let channel = try await harness.allocate()
        let request = Self.getAssertion()
        await harness.send(.cbor, request, on: channel)
        #expect(try await harness.nextMessage().payload == Self.phoneReply)
        await harness.send(.cbor, request, on: channel)
        #expect(try await harness.nextMessage().payload == Self.phoneReply)
        #expect(harness.phone.requests.count == 1)
        // Other client data: a new ceremony.
        await harness.send(.cbor, Self.getAssertion(clientDataHash: 0x12), on: channel)
        #expect(try await harness.nextMessage().payload == [0x00, 0xA0])
        // Another RP, same client data: a new ceremony.
        await harness.send(.cbor, Self.getAssertion(rp: "example.org"), on: channel)
        #expect(try await harness.nextMessage().payload == [0x00, 0xA1, 0x01, 0x01])
        #expect(harness.phone.requests.count == 3)
    }

    @Test func cacheExpiresAfterItsWindow() async throws {
        let harness = BridgeHarness([.reply(Self.phoneReply), .reply([0x00, 0xA0])])
        let channel = try await harness.allocate()
        let request = Self.getAssertion()
        await harness.send(.cbor, request, on: channel)
        _ = try await harness.nextMessage()
        harness.clock.advance(by: BridgeResponseCache.defaultWindow)
        await harness.send(.cbor, request, on: channel)
        #expect(try await harness.nextMessage().payload == [0x00, 0xA0])
        #expect(harness.phone.requests.count == 2)
    }

    @Test func errorsAreNotCached() async throws {
        let harness = BridgeHarness([.reply([0x27]), .reply(Self.phoneReply)])
        let channel = try await harness.allocate()
        let request = Self.getAssertion()
        await harness.send(.cbor, request, on: channel)
        #expect(try await harness.nextMessage().payload == [0x27])  // refusal on the phone, unchanged
        await harness.send(.cbor, request, on: channel)
        #expect(try await harness.nextMessage().payload == Self.phoneReply)
    }

    @Test func failuresMapToCTAPStatuses() async throws {
        let harness = BridgeHarness([
            .fail(.timedOut(stage: .waitingForDevice, after: .seconds(120))), .fail(.session(.tunnelClosedEarly)),
        ])
        let channel = try await harness.allocate()
        await harness.send(.cbor, Self.getAssertion(), on: channel)
        #expect(try await harness.nextMessage().payload == [0x2F])  // USER_ACTION_TIMEOUT
        await harness.send(.cbor, Self.getAssertion(), on: channel)
        #expect(try await harness.nextMessage().payload == [0x7F])  // lost tunnel: CTAP1_ERR_OTHER
    }

    @Test func selectionIsHeldUntilCancelled() async throws {
        let harness = BridgeHarness([])
        let channel = try await harness.allocate()
        await harness.send(.cbor, [0x0B], on: channel)
        // Keepalives say the user is needed; no phone ceremony.
        harness.clock.advance(by: .milliseconds(100))
        await harness.bridge.tick()
        #expect(try await harness.nextMessage() == CTAPHIDMessage(channel: channel, command: .keepalive, payload: [2]))
        await harness.send(.cancel, [], on: channel)
        #expect(try await harness.nextMessage().payload == [0x2D])
        #expect(harness.phone.requests.isEmpty)
    }
}

extension SecurityKeyBridgeTests {
    /// While the phone works the key sends KEEPALIVE on the request's channel: PROCESSING first,
    /// UPNEEDED once the QR code is up (the user must act), at the state machine's interval.
    @Test(.timeLimit(.minutes(5)))
    func keepalivesSayUserNeededOnceTheQRCodeIsUp() async throws {
        let harness = BridgeHarness([.waitForCancel])
        let channel = try await harness.allocate()
        await harness.send(.cbor, Self.getAssertion(), on: channel)
        // The QR code is up once its event is out; the status change then hops through the actor,
        // so keepalives are read until it shows (bounded by the time limit, not by a count).
        for await event in harness.events {
            if case .ceremony(.qr) = event { break }
        }
        var statuses: [UInt8] = []
        while statuses.last != 2 {
            harness.clock.advance(by: .milliseconds(100))
            await harness.bridge.tick()
            let message = try await harness.nextMessage()
            #expect(message.channel == channel)
            #expect(message.command == .keepalive)
            statuses.append(message.payload.first ?? 0)
            await Task.yield()
        }
        #expect(statuses.allSatisfy { $0 == 1 || $0 == 2 })
        await harness.send(.cancel, [], on: channel)
        #expect(try await harness.nextMessage().payload == [0x2D])
    }
}

extension SecurityKeyBridgeTests {
    /// Firefox's sign-in with an allow list, end to end through CTAPHID: the probe is claimed
    /// locally, the real request (only the claimed ID, options `{"uv", "up"}`) reaches the phone
    /// canonical and with the whole list, and the ID the phone used is handed over to persist.
    @Test func firefoxAllowListSignInReachesThePhoneWithTheWholeList() async throws {
        typealias H = HandCBOR
        let idA = [UInt8](repeating: 0xA1, count: 16)
        let idB = [UInt8](repeating: 0xB2, count: 16)
        let cdh = [UInt8](repeating: 0x11, count: 32)
        let reply: [UInt8] =
            [0x00, 0xA3, 0x01] + H.descriptor(idB) + [0x02] + H.bytes(H.exampleRPIDHash + [0x05, 0, 0, 0, 9]) + [0x03]
            + H.bytes([0x30, 0x00])
        let harness = BridgeHarness([.reply(reply)])
        let channel = try await harness.allocate()
        await harness.send(
            .cbor,
            H.getAssertion(
                clientDataHash: H.emptyHash, allow: [H.descriptor(idA), H.descriptor(idB)], options: H.upFalse),
            on: channel)
        #expect(try await harness.nextMessage().payload == H.syntheticAssertion(idA))
        #expect(harness.phone.requests.isEmpty)
        await harness.send(
            .cbor, H.getAssertion(clientDataHash: cdh, allow: [H.descriptor(idA)], options: H.firefoxUVUP), on: channel)
        #expect(try await harness.nextMessage().payload == reply)
        #expect(
            harness.phone.requests == [
                H.getAssertion(
                    clientDataHash: cdh, allow: [H.descriptor(idA), H.descriptor(idB)], options: H.canonicalUPUV)
            ])
        #expect(harness.saved.credentials.withLock { $0 }?.contains(idB, rpIDHash: H.exampleRPIDHash) == true)
    }

    /// Two programs one after another (other client data): each gets its own ceremony, with the
    /// rewrites; the identical request repeated is answered from the cache.
    @Test func twoProgramsGetTwoCeremoniesAndARepeatIsCached() async throws {
        typealias H = HandCBOR
        let harness = BridgeHarness([.reply(Self.phoneReply), .reply([0x00, 0xA0])])
        let first = try await harness.allocate()
        let second = try await harness.allocate()
        let programA = H.getAssertion(
            clientDataHash: [UInt8](repeating: 1, count: 32), allow: [], options: H.firefoxUVUP)
        let programB = H.getAssertion(
            clientDataHash: [UInt8](repeating: 2, count: 32), allow: [], options: H.firefoxUVUP)
        await harness.send(.cbor, programA, on: first)
        #expect(try await harness.nextMessage().payload == Self.phoneReply)
        await harness.send(.cbor, programB, on: second)
        #expect(try await harness.nextMessage().payload == [0x00, 0xA0])
        await harness.send(.cbor, programA, on: first)
        #expect(try await harness.nextMessage().payload == Self.phoneReply)
        #expect(harness.phone.requests.count == 2)
    }
}

extension SecurityKeyBridgeTests {
    /// Through CTAPHID: a probe answered "none" (a full chunk of unknown IDs), then Firefox's
    /// `make.me.blink` touch: answered OPERATION_DENIED at once, not held for 30 s.
    @Test func touchAfterAProbeMissEndsAtOnce() async throws {
        typealias H = HandCBOR
        let harness = BridgeHarness([])
        let channel = try await harness.allocate()
        let ids = (0..<64).map { H.descriptor([0xF0, UInt8($0)]) }
        await harness.send(
            .cbor, H.getAssertion(clientDataHash: H.emptyHash, allow: ids, options: H.upFalse), on: channel)
        #expect(try await harness.nextMessage().payload == [0x2E])
        await harness.send(.cbor, BridgeRequestPolicyTests.firefoxBlink, on: channel)
        #expect(try await harness.nextMessage() == CTAPHIDMessage(channel: channel, command: .cbor, payload: [0x27]))
        #expect(harness.phone.requests.isEmpty)
    }

    /// The rewrites made on the way to the phone are reported (phrases only, no payload).
    @Test(.timeLimit(.minutes(5)))
    func rewritesAreReported() async throws {
        typealias H = HandCBOR
        let harness = BridgeHarness([.reply(Self.phoneReply)])
        let channel = try await harness.allocate()
        let request = H.getAssertion(
            clientDataHash: [UInt8](repeating: 3, count: 32), allow: [H.descriptorWithUSB([1, 2, 3])], options: nil)
        await harness.send(.cbor, request, on: channel)
        #expect(try await harness.nextMessage().payload == Self.phoneReply)
        for await event in harness.events {
            if case .rewritten(let command, let rewrites) = event {
                #expect(command == .getAssertion && rewrites == ["transports removed from the allow list"])
                break
            }
        }
    }
}
