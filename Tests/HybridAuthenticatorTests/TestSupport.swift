import Crypto
import Foundation
import HybridAuthenticator
import HybridCTAP
import HybridCore
import Synchronization
import Testing

/// A user who answers from a script and remembers what was asked.
actor ScriptedUser: UserInteraction {
    var approves: Bool
    var choice: Int?
    var verifies: Bool
    private(set) var log: [String] = []
    private(set) var offeredAccounts: [AccountChoice] = []

    /// Whether a verification method is set up (getInfo `uv`); `verifies` is the outcome of each attempt.
    nonisolated let canVerifyUser: Bool

    init(approves: Bool = true, choice: Int? = 0, verifies: Bool = true, canVerifyUser: Bool = true) {
        self.approves = approves
        self.choice = choice
        self.verifies = verifies
        self.canVerifyUser = canVerifyUser
    }

    func set(approves: Bool? = nil, choice: Int?? = nil, verifies: Bool? = nil) {
        if let approves { self.approves = approves }
        if let choice { self.choice = choice }
        if let verifies { self.verifies = verifies }
    }

    func confirm(operation: UserOperation, rpID: String?, userName: String?) -> Bool {
        log.append("confirm \(operation) \(rpID ?? "-") \(userName ?? "-")")
        return approves
    }

    func chooseAccount(rpID: String, accounts: [AccountChoice]) -> Int? {
        log.append("choose \(rpID) \(accounts.count)")
        offeredAccounts = accounts
        return choice
    }

    func verifyUser() -> Bool {
        log.append("verify")
        return verifies
    }
}

/// Deterministic randomness: SHA-256 of a seed and a counter, so runs are reproducible.
final class CountingRandom: Sendable {
    private let seed: UInt8
    private let counter = Mutex<UInt64>(0)

    init(seed: UInt8 = 0) { self.seed = seed }

    var source: RandomSource { RandomSource { count in self.next(count) } }

    func next(_ count: Int) -> [UInt8] {
        var out: [UInt8] = []
        while out.count < count {
            let value = counter.withLock { counter in
                counter += 1
                return counter
            }
            out += SHA256.hash(data: [seed] + withUnsafeBytes(of: value.bigEndian, Array.init))
        }
        return Array(out.prefix(count))
    }

    /// A clock that starts at ``Fixtures/fixedDate`` and advances one second per reading.
    final class Clock: Sendable {
        private let seconds = Mutex<Double>(0)

        func tick() -> Date {
            Fixtures.fixedDate.addingTimeInterval(
                seconds.withLock { seconds in
                    seconds += 1
                    return seconds
                })
        }
    }
}

/// A fresh directory under the system temporary directory, removed by `cleanUp()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "hybrid-authenticator-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func cleanUp() { try? FileManager.default.removeItem(atPath: path) }
}

enum Fixtures {
    static let clientDataHash = Array(SHA256.hash(data: Array("client data".utf8)))
    static let fixedDate = Date(timeIntervalSince1970: 1_767_225_600)

    static func makeCredential(
        rp: String = "example.com", userID: [UInt8] = [1, 2, 3, 4], userName: String = "alice",
        algorithms: [Int64] = [-7], excludeList: [PublicKeyCredentialDescriptor]? = nil,
        options: CTAPRequestOptions? = CTAPRequestOptions(residentKey: true)
    ) -> MakeCredentialRequest {
        MakeCredentialRequest(
            clientDataHash: clientDataHash, rp: PublicKeyCredentialRPEntity(id: rp, name: rp),
            user: PublicKeyCredentialUserEntity(id: userID, name: userName, displayName: userName.capitalized),
            publicKeyCredentialParameters: algorithms.map { PublicKeyCredentialParameters(algorithm: $0) },
            excludeList: excludeList, options: options)
    }

    static func getAssertion(
        rp: String = "example.com", allowList: [PublicKeyCredentialDescriptor]? = nil,
        options: CTAPRequestOptions? = nil
    ) -> GetAssertionRequest {
        GetAssertionRequest(rpID: rp, clientDataHash: clientDataHash, allowList: allowList, options: options)
    }

    /// An engine over `store` with deterministic randomness and a clock that ticks one second per call.
    static func authenticator(
        store: any PasskeyStore = InMemoryPasskeyStore(), user: any UserInteraction = ScriptedUser(),
        configuration: AuthenticatorConfiguration = AuthenticatorConfiguration(),
        random: CountingRandom = CountingRandom()
    ) -> CTAPAuthenticator {
        let clock = CountingRandom.Clock()
        return CTAPAuthenticator(
            store: store, userInteraction: user, configuration: configuration,
            environment: AuthenticatorEnvironment(random: random.source, now: { clock.tick() }))
    }

    static func passkey(
        rp: String = "example.com", id: [UInt8], user: [UInt8], name: String, discoverable: Bool = true,
        created: Double = 0
    ) -> Passkey {
        Passkey(
            metadata: PasskeyMetadata(
                credentialID: id, rpID: rp, userHandle: user, userName: name, userDisplayName: name.uppercased(),
                createdAt: fixedDate.addingTimeInterval(created), isDiscoverable: discoverable),
            privateKey: P256.Signing.PrivateKey())
    }
}
