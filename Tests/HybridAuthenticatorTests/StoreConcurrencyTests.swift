import Foundation
import HybridAuthenticator
import HybridCore
import TestChildProcess
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Several writers on one store file: every change is a read-modify-write under the store's lock,
/// so none is lost and nothing deleted comes back.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct StoreConcurrencyTests {
    /// The `hybrid-authenticator` binary next to the test bundle.
    static var authenticatorBinary: String {
        var directory = Bundle.main.bundleURL
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            directory = bundle.bundleURL.deletingLastPathComponent()
        }
        return directory.appendingPathComponent("hybrid-authenticator").path
    }

    static func id(_ trial: Int, _ index: Int) -> [UInt8] {
        [0x5E] + withUnsafeBytes(of: UInt32(trial).bigEndian, Array.init)
            + withUnsafeBytes(of: UInt32(index).bigEndian, Array.init)
    }

    /// `hybrid-authenticator credentials delete` (the real program, another process) runs while
    /// this process registers passkeys one after another until it has exited, then once more. Every
    /// registration that returned is in the file, the deleted passkey is gone, and stays gone
    /// although this process's store still held it in memory. Repeated: an interleaving that
    /// loses an update shows up in some of the trials (it did in 27 of 50 before the lock).
    @Test(arguments: [(false, 50), (true, 8)])
    func credentialsDeleteDuringRegistrationsLosesNothing(encrypted: Bool, trials: Int) async throws {
        let binary = Self.authenticatorBinary
        try #require(FileManager.default.isExecutableFile(atPath: binary), "build hybrid-authenticator first")
        var registrations = 0
        var registrationsWhileDeleting = 0
        for trial in 0..<trials {
            let directory = try TemporaryDirectory()
            defer { directory.cleanUp() }
            let path = directory.file("passkeys.json")
            let store = try FilePasskeyStore(
                path: path, protection: encrypted ? .passphrase("pw") : .insecurePlaintext,
                newStoreParameters: .insecureFastForTesting)
            let victim = Fixtures.passkey(
                id: Array(repeating: 0xDD, count: 16), user: [0xDD], name: "victim", discoverable: false)
            let keeper = Fixtures.passkey(
                id: Array(repeating: 0x11, count: 16), user: [0x11], name: "keeper", discoverable: false)
            try await store.add(victim)
            try await store.add(keeper)

            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments =
                ["credentials", "delete", Hex.encode(victim.credentialID), "--store", path]
                + (encrypted ? [] : ["--insecure-plaintext-store"])
            process.environment = ["HYBRID_AUTHENTICATOR_PASSPHRASE": "pw", "PATH": "/usr/bin:/bin"]
            process.standardOutput = FileHandle.nullDevice
            let errors = Pipe()
            process.standardError = errors
            try process.run()
            var registered: [[UInt8]] = []
            while process.isRunning && registered.count < 5000 {
                let id = Self.id(trial, registered.count)
                try await store.add(Fixtures.passkey(id: id, user: id, name: "r", discoverable: false))
                registered.append(id)
            }
            registrationsWhileDeleting += registered.count
            _ = await ChildProcess.exitStatus(of: process)
            // A change after the delete, from a store whose memory still had the victim.
            let last = Self.id(trial, registered.count)
            try await store.add(Fixtures.passkey(id: last, user: last, name: "r", discoverable: false))
            registered.append(last)
            registrations += registered.count

            let stderr = String(decoding: await ChildProcess.readToEnd(errors.fileHandleForReading), as: UTF8.self)
            #expect(process.terminationStatus == 0, "trial \(trial): delete failed: \(stderr)")
            let stored = Set(try FilePasskeyStore.metadata(atPath: path).map(\.credentialID))
            #expect(!stored.contains(victim.credentialID), "trial \(trial): the deleted passkey came back")
            #expect(stored.contains(keeper.credentialID), "trial \(trial)")
            let lost = registered.filter { !stored.contains($0) }
            #expect(lost.isEmpty, "trial \(trial): \(lost.count) of \(registered.count) registrations lost")
            #expect(try await store.delete(credentialID: victim.credentialID) == false)
        }
        print(
            "store concurrency (encrypted: \(encrypted)): \(trials) trials, \(registrations) registrations, \(registrationsWhileDeleting) while delete ran"
        )
    }

    /// Two store instances in one process (two open file descriptions, so two lock holders) add
    /// passkeys and bump one counter at the same time: every passkey and every bump is kept.
    @Test func twoInstancesInterleavedLoseNothing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("passkeys.json")
        let shared = Fixtures.passkey(
            id: Array(repeating: 0x77, count: 16), user: [0x77], name: "shared", discoverable: false)
        try await FilePasskeyStore(path: path, protection: .insecurePlaintext).add(shared)
        let stores = [
            try FilePasskeyStore(path: path, protection: .insecurePlaintext),
            try FilePasskeyStore(path: path, protection: .insecurePlaintext),
        ]
        let rounds = 40
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (which, store) in stores.enumerated() {
                group.addTask {
                    for index in 0..<rounds {
                        let id = Self.id(which, index)
                        try await store.add(Fixtures.passkey(id: id, user: id, name: "p", discoverable: false))
                        _ = try await store.incrementSignCount(credentialID: shared.credentialID)
                    }
                }
            }
            try await group.waitForAll()
        }
        let stored = try FilePasskeyStore.metadata(atPath: path)
        #expect(stored.count == 1 + 2 * rounds)
        #expect(stored.first { $0.credentialID == shared.credentialID }?.signCount == UInt32(2 * rounds))
    }

    /// Two instances prepare the same new encrypted store, each with its own salt. The first
    /// write creates the file; the second instance finds it under the lock, derives the key of the
    /// file's salt from its passphrase, and adds to it. One prepared with another passphrase gets
    /// `wrongPassphrase` and writes nothing. A store removed meanwhile starts again empty.
    @Test func instancesThatBothCreatedTheStoreAgreeOnTheFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("passkeys.json")
        let first = try FilePasskeyStore(
            path: path, protection: .passphrase("pw"), newStoreParameters: .insecureFastForTesting)
        let second = try FilePasskeyStore(
            path: path, protection: .passphrase("pw"), newStoreParameters: .insecureFastForTesting)
        try await first.add(Fixtures.passkey(id: [1], user: [1], name: "a"))
        try await second.add(Fixtures.passkey(id: [2], user: [2], name: "b"))
        #expect(await second.list().map(\.credentialID) == [[2], [1]])
        let reopened = try FilePasskeyStore(path: path, protection: .passphrase("pw"))
        #expect(await reopened.list().count == 2)
        #expect(await second.verifyPassphrase("pw"))

        // An instance prepared with another passphrase cannot write over it.
        let stranger = try FilePasskeyStore(
            path: directory.file("elsewhere.json"), protection: .passphrase("other"),
            newStoreParameters: .insecureFastForTesting)
        try FileManager.default.copyItem(atPath: path, toPath: directory.file("elsewhere.json"))
        let before = try Data(contentsOf: URL(fileURLWithPath: directory.file("elsewhere.json")))
        await #expect(throws: PasskeyStoreError.wrongPassphrase) {
            try await stranger.add(Fixtures.passkey(id: [9], user: [9], name: "z"))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file("elsewhere.json"))) == before)

        try FileManager.default.removeItem(atPath: path)
        try await first.add(Fixtures.passkey(id: [3], user: [3], name: "c"))
        #expect(try FilePasskeyStore.metadata(atPath: path).map(\.credentialID) == [[3]])

        // Without its directory, a change that writes nothing creates nothing.
        try FileManager.default.removeItem(atPath: directory.path)
        #expect(try await first.delete(credentialID: [3]) == false)
        await #expect(throws: PasskeyStoreError.unknownCredential) {
            try await first.incrementSignCount(credentialID: [3])
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path))
        try await first.add(Fixtures.passkey(id: [4], user: [4], name: "d"))
        #expect(try FilePasskeyStore.metadata(atPath: path).map(\.credentialID) == [[4]])
    }

    /// Temporary files a killed writer left are removed by the next write (which holds the lock,
    /// so none of them can belong to a live writer); other files in the directory stay.
    @Test func leftoverTemporaryFilesAreRemovedByTheNextWrite() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("passkeys.json")
        let store = try FilePasskeyStore(path: path, protection: .insecurePlaintext)
        try await store.add(Fixtures.passkey(id: [1], user: [1], name: "a"))
        let leftovers = [".passkeys.json.tmp-aaaa", ".passkeys.json.tmp-bbbb", ".passkeys.json.tmp-"]
        for name in leftovers {
            try Data("{\"format\": \"hybrid".utf8).write(to: URL(fileURLWithPath: directory.file(name)))
        }
        let unrelated = [".other.json.tmp-cccc", "passkeys.json.tmp-dddd", "notes.txt"]
        for name in unrelated { try Data("x".utf8).write(to: URL(fileURLWithPath: directory.file(name))) }

        // Reading ignores them; a change that writes nothing leaves them.
        let reopened = try FilePasskeyStore(path: path, protection: .insecurePlaintext)
        #expect(await reopened.list().count == 1)
        #expect(try await reopened.delete(credentialID: [9]) == false)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).count == 2 + leftovers.count
                + unrelated.count)

        try await reopened.add(Fixtures.passkey(id: [2], user: [2], name: "b"))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(names == ([".passkeys.json.lock", "passkeys.json"] + unrelated).sorted())
        #expect(try FilePasskeyStore.metadata(atPath: path).count == 2)
    }
}
