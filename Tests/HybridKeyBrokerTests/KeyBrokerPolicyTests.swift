import Testing

@testable import HybridKeyBroker

/// The broker's rule, event by event: a key only for the active local session of a seat, one per
/// session, removed the moment the session stops being active, and nothing but the FIDO key.
@Suite struct KeyBrokerPolicyTests {
    static let alice: UInt32 = 1001
    static let bob: UInt32 = 1002
    static let aliceSession = ActiveLocalSession(id: "c1", uid: alice, seat: "seat0")
    static let bobSession = ActiveLocalSession(id: "c2", uid: bob, seat: "seat0")
    static let report = [UInt8](repeating: 0xAB, count: 64)
    static let request = AgentMessage.requestKey(version: KeyBrokerMessage.version).encoded
    /// An arbitrary origin on the I/O's clock: the policy only compares instants it is given.
    static let start = ContinuousClock.now

    /// logind with `active` as the seats' active sessions, and Alice, Bob and 1003 (and `others`)
    /// as users with some session.
    static func logind(_ active: [ActiveLocalSession], others: Set<UInt32> = [alice, bob, 1003]) -> LogindSnapshot {
        LogindSnapshot(activeLocalSessions: active, usersWithSessions: others)
    }

    /// A policy where logind reported `sessions` and agent 1 of `uid` asked for a key.
    static func requested(uid: UInt32, sessions: [ActiveLocalSession]?) -> (KeyBrokerPolicy, [KeyBrokerPolicy.Action]) {
        var policy = KeyBrokerPolicy()
        _ = policy.sessionsChanged(sessions.map { Self.logind($0) })
        #expect(policy.agentConnected(1, uid: uid, at: Self.start).isEmpty)
        let actions = policy.agentSent(1, datagram: request)
        return (policy, actions)
    }

    @Test func theActiveSessionsUserGetsAKey() {
        var (policy, actions) = Self.requested(uid: Self.alice, sessions: [Self.aliceSession])
        #expect(actions == [.createDevice(1, uid: Self.alice)])
        #expect(policy.deviceCreated(1, hidraw: "/dev/hidraw3") == [.send(1, .created(hidraw: "/dev/hidraw3"))])
        #expect(policy.session(of: 1) == Self.aliceSession)
        // Reports flow both ways only now.
        #expect(
            policy.agentSent(1, datagram: AgentMessage.inputReport(Self.report).encoded) == [
                .forwardInput(1, Self.report)
            ])
        #expect(policy.deviceOutput(1, report: Self.report) == [.send(1, .outputReport(Self.report))])
        #expect(policy.deviceClosed(1) == [.send(1, .closed)])
    }

    @Test func aBackgroundOrRemoteUserIsRefusedAndGetsNoDevice() {
        // Bob's session exists but Alice's is the seat's active one.
        let (_, actions) = Self.requested(uid: Self.bob, sessions: [Self.aliceSession])
        #expect(actions == [.send(1, .refused(.sessionNotActive))])
        // No active local session at all (an SSH login: ActiveLocalSession.select drops it).
        let (_, remote) = Self.requested(uid: Self.bob, sessions: [])
        #expect(remote == [.send(1, .refused(.sessionNotActive))])
    }

    @Test func withoutLogindNobodyGetsAKeyAndKeysAreRemoved() {
        let (_, unknown) = Self.requested(uid: Self.alice, sessions: nil)
        #expect(unknown == [.send(1, .refused(.sessionsUnknown))])

        var (policy, _) = Self.requested(uid: Self.alice, sessions: [Self.aliceSession])
        _ = policy.deviceCreated(1, hidraw: "/dev/hidraw3")
        #expect(policy.sessionsChanged(nil) == [.destroyDevice(1), .send(1, .removed(.sessionsUnknown))])
    }

    @Test func aUserSwitchRemovesTheKeyAtOnceAndSwitchingBackReturnsIt() {
        var (policy, _) = Self.requested(uid: Self.alice, sessions: [Self.aliceSession])
        _ = policy.deviceCreated(1, hidraw: "/dev/hidraw3")
        #expect(policy.agentConnected(2, uid: Self.bob, at: Self.start).isEmpty)
        #expect(policy.agentSent(2, datagram: Self.request) == [.send(2, .refused(.sessionNotActive))])

        // Bob's session becomes the seat's active one: Alice's key goes, Bob's is made.
        #expect(
            policy.sessionsChanged(Self.logind([Self.bobSession])) == [
                .destroyDevice(1), .send(1, .removed(.sessionNotActive)), .createDevice(2, uid: Self.bob),
            ])
        #expect(policy.session(of: 1) == nil)
        // Alice's late reports reach no device, and programs' reports no longer reach Alice.
        #expect(policy.agentSent(1, datagram: AgentMessage.inputReport(Self.report).encoded).isEmpty)
        #expect(policy.deviceOutput(1, report: Self.report).isEmpty)

        // And back.
        _ = policy.deviceCreated(2, hidraw: "/dev/hidraw4")
        #expect(
            policy.sessionsChanged(Self.logind([Self.aliceSession])) == [
                .destroyDevice(2), .send(2, .removed(.sessionNotActive)), .createDevice(1, uid: Self.alice),
            ])
    }

    @Test func oneKeyPerSession() {
        var (policy, _) = Self.requested(uid: Self.alice, sessions: [Self.aliceSession])
        #expect(policy.agentConnected(2, uid: Self.alice, at: Self.start).isEmpty)
        #expect(policy.agentSent(2, datagram: Self.request) == [.send(2, .refused(.keyInUse))])
        // The first agent leaves: the second gets the session's key.
        #expect(policy.agentDisconnected(1) == [.destroyDevice(1), .createDevice(2, uid: Self.alice)])
    }

    @Test func aDeviceFinishedAfterItsSessionEndedIsDestroyed() {
        var (policy, _) = Self.requested(uid: Self.alice, sessions: [Self.aliceSession])
        _ = policy.sessionsChanged(Self.logind([Self.bobSession]))
        #expect(policy.deviceCreated(1, hidraw: "/dev/hidraw3") == [.destroyDevice(1)])
    }

    @Test(
        arguments: [
            [], [0x02] + [UInt8](repeating: 0, count: 63), [0x07], [0x01, 1, 0], [0x01, 1],
        ] as [[UInt8]])
    func protocolViolationsEndTheConnectionAndTheKey(datagram: [UInt8]) {
        var (policy, _) = Self.requested(uid: Self.alice, sessions: [Self.aliceSession])
        _ = policy.deviceCreated(1, hidraw: "/dev/hidraw3")
        #expect(policy.agentSent(1, datagram: datagram) == [.destroyDevice(1), .disconnect(1)])
        #expect(policy.session(of: 1) == nil)
    }

    @Test func aReportBeforeAnyRequestEndsTheConnection() {
        var policy = KeyBrokerPolicy()
        _ = policy.sessionsChanged(Self.logind([Self.aliceSession]))
        _ = policy.agentConnected(1, uid: Self.alice, at: Self.start)
        #expect(policy.agentSent(1, datagram: AgentMessage.inputReport(Self.report).encoded) == [.disconnect(1)])
    }

    @Test func anotherVersionIsRefused() {
        var policy = KeyBrokerPolicy()
        _ = policy.sessionsChanged(Self.logind([Self.aliceSession]))
        _ = policy.agentConnected(1, uid: Self.alice, at: Self.start)
        #expect(
            policy.agentSent(1, datagram: AgentMessage.requestKey(version: 9).encoded) == [
                .send(1, .refused(.unsupportedVersion)), .disconnect(1),
            ])
    }

    @Test func connectionsAreBounded() {
        var policy = KeyBrokerPolicy(maximumAgents: 3, maximumAgentsPerUser: 2)
        #expect(policy.agentConnected(1, uid: Self.alice, at: Self.start).isEmpty)
        #expect(policy.agentConnected(2, uid: Self.alice, at: Self.start).isEmpty)
        #expect(
            policy.agentConnected(3, uid: Self.alice, at: Self.start) == [
                .send(3, .refused(.tooManyAgents)), .disconnect(3),
            ])
        #expect(policy.agentConnected(4, uid: Self.bob, at: Self.start).isEmpty)
        #expect(
            policy.agentConnected(5, uid: 1003, at: Self.start) == [.send(5, .refused(.tooManyAgents)), .disconnect(5)])
    }

    @Test func aFailedDeviceLeavesTheAgentWaitingForTheNextChange() {
        var (policy, _) = Self.requested(uid: Self.alice, sessions: [Self.aliceSession])
        #expect(policy.deviceFailed(1) == [.send(1, .refused(.deviceFailed))])
        #expect(policy.sessionsChanged(Self.logind([Self.aliceSession])) == [.createDevice(1, uid: Self.alice)])
    }

    @Test func aSilentConnectionIsClosedAtItsDeadline() {
        var policy = KeyBrokerPolicy(maximumAgentsPerUser: 1, requestDeadline: .seconds(5))
        _ = policy.sessionsChanged(Self.logind([Self.aliceSession]))
        #expect(policy.nextDeadline == nil)
        #expect(policy.agentConnected(1, uid: Self.bob, at: Self.start).isEmpty)
        #expect(policy.agentConnected(2, uid: Self.alice, at: Self.start + .seconds(1)).isEmpty)
        #expect(policy.nextDeadline == Self.start + .seconds(5))
        // Alice's agent asks in time: it is on no deadline any more.
        #expect(policy.agentSent(2, datagram: Self.request) == [.createDevice(2, uid: Self.alice)])
        #expect(policy.deadlinePassed(at: Self.start + .milliseconds(4_999)).isEmpty)
        #expect(policy.deadlinePassed(at: Self.start + .seconds(5)) == [.disconnect(1)])
        #expect(policy.nextDeadline == nil)
        #expect(policy.deadlinePassed(at: Self.start + .seconds(60)).isEmpty)
        // Bob's slot is free again.
        #expect(policy.agentConnected(3, uid: Self.bob, at: Self.start + .seconds(6)).isEmpty)
        // A closed connection's deadline is forgotten.
        _ = policy.agentDisconnected(3)
        #expect(policy.nextDeadline == nil)
    }

    @Test func aUserLogindKnowsNoSessionOfIsRefusedAtOnce() {
        var policy = KeyBrokerPolicy()
        // Before logind answered nobody can be told apart: the connection waits (on its deadline).
        #expect(policy.agentConnected(1, uid: 2000, at: Self.start).isEmpty)
        _ = policy.sessionsChanged(Self.logind([Self.aliceSession], others: [Self.bob]))
        #expect(
            policy.agentConnected(2, uid: 2000, at: Self.start) == [.send(2, .refused(.noSession)), .disconnect(2)])
        // A seatless (SSH) or background session is a session: Bob waits, as before.
        #expect(policy.agentConnected(3, uid: Self.bob, at: Self.start).isEmpty)
        #expect(policy.agentSent(3, datagram: Self.request) == [.send(3, .refused(.sessionNotActive))])
        #expect(policy.agentConnected(4, uid: Self.alice, at: Self.start).isEmpty)
    }

    @Test func theSeatedUserGetsInWhenEveryConnectionIsTaken() {
        var policy = KeyBrokerPolicy(maximumAgents: 4, maximumAgentsPerUser: 2)
        _ = policy.sessionsChanged(Self.logind([Self.aliceSession], others: [Self.bob, 1003, 1004]))
        // Bob's two agents wait (asked, refused); 1003's two are silent.
        for agent in [1, 2] {
            #expect(policy.agentConnected(agent, uid: Self.bob, at: Self.start).isEmpty)
            _ = policy.agentSent(agent, datagram: Self.request)
        }
        #expect(policy.agentConnected(3, uid: 1003, at: Self.start).isEmpty)
        #expect(policy.agentConnected(4, uid: 1003, at: Self.start).isEmpty)
        // Full: another user without an active local session is refused...
        #expect(
            policy.agentConnected(5, uid: 1004, at: Self.start) == [.send(5, .refused(.tooManyAgents)), .disconnect(5)])
        // ...the seated user is not: the oldest agent without a key makes room.
        #expect(
            policy.agentConnected(6, uid: Self.alice, at: Self.start) == [
                .send(1, .refused(.tooManyAgents)), .disconnect(1),
            ])
        #expect(policy.agentSent(6, datagram: Self.request) == [.createDevice(6, uid: Self.alice)])
        _ = policy.deviceCreated(6, hidraw: "/dev/hidraw0")
        #expect(
            policy.agentConnected(7, uid: Self.alice, at: Self.start) == [
                .send(2, .refused(.tooManyAgents)), .disconnect(2),
            ])
        // Her own bound still holds.
        #expect(
            policy.agentConnected(8, uid: Self.alice, at: Self.start) == [
                .send(8, .refused(.tooManyAgents)), .disconnect(8),
            ])
        // A key is never what makes room.
        #expect(policy.session(of: 6) == Self.aliceSession)
    }

    /// The flood a local user could send: 16 uids with a session (subordinate uids, SSH) with 4
    /// silent connections each fill every slot; the seated user's agent still gets its key.
    @Test func aFloodOfSilentConnectionsLocksNobodyOut() {
        var policy = KeyBrokerPolicy()
        let flood = Set((0..<16).map { UInt32(5000 + $0) })
        _ = policy.sessionsChanged(Self.logind([Self.aliceSession], others: flood))
        var agent = 0
        for uid in flood.sorted() {
            for _ in 0..<4 {
                agent += 1
                #expect(policy.agentConnected(agent, uid: uid, at: Self.start).isEmpty)
            }
        }
        #expect(policy.agentConnected(100, uid: 5000, at: Self.start).contains(.disconnect(100)))
        #expect(
            policy.agentConnected(101, uid: Self.alice, at: Self.start) == [
                .send(1, .refused(.tooManyAgents)), .disconnect(1),
            ])
        #expect(policy.agentSent(101, datagram: Self.request) == [.createDevice(101, uid: Self.alice)])
        // And the flood's connections are all closed at their deadline.
        #expect(policy.deadlinePassed(at: Self.start + policy.requestDeadline) == (2...64).map { .disconnect($0) })
    }

    /// logind's records: only the seat's active, local, unlocked user session qualifies.
    @Test func onlyActiveLocalUnlockedUserSessionsQualify() {
        func record(
            _ id: String, seat: String = "seat0", seatsActive: Bool = true, active: Bool = true, remote: Bool = false,
            locked: Bool = false, sessionClass: String = "user"
        ) -> LoginSessionRecord {
            LoginSessionRecord(
                id: id, uid: 1000, seat: seat, isSeatsActiveSession: seatsActive, active: active, remote: remote,
                locked: locked, sessionClass: sessionClass)
        }
        #expect(record("ok").isActiveLocal)
        #expect(!record("ssh", seat: "").isActiveLocal)
        #expect(!record("background", seatsActive: false).isActiveLocal)
        #expect(!record("inactive", active: false).isActiveLocal)
        #expect(!record("remote", remote: true).isActiveLocal)
        #expect(!record("locked", locked: true).isActiveLocal)
        #expect(!record("greeter", sessionClass: "greeter").isActiveLocal)
        #expect(
            ActiveLocalSession.select(from: [record("a", seat: "seat1"), record("b"), record("c", locked: true)]) == [
                ActiveLocalSession(id: "b", uid: 1000, seat: "seat0"),
                ActiveLocalSession(id: "a", uid: 1000, seat: "seat1"),
            ])
    }
}
