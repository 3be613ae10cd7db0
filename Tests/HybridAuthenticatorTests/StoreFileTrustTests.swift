import Foundation
import HybridAuthenticator
import TestChildProcess
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The store file and its lock are opened only as this user's regular files: never through a
/// symbolic link (the lock used to be created wherever a planted link pointed), never blocking on
/// a FIFO, never another user's file or one others may write.
@Suite(.timeLimit(.minutes(1)))
struct StoreFileTrustTests {
    static let fast = ScryptParameters.insecureFastForTesting

    @Test func aSymbolicLinkAsTheLockFileIsRefusedAndNothingIsCreatedThroughIt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("passkeys.json")
        let elsewhere = directory.file("elsewhere")
        #expect(symlink(elsewhere, directory.file(".passkeys.json.lock")) == 0)
        let store = try FilePasskeyStore(path: path, protection: .insecurePlaintext)
        await #expect(throws: PasskeyStoreError.refusedFile(path: directory.file(".passkeys.json.lock"), .symbolicLink))
        {
            try await store.add(Fixtures.passkey(id: Array(repeating: 1, count: 16), user: [1], name: "alice"))
        }
        #expect(!FileManager.default.fileExists(atPath: elsewhere))
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func aFIFOAsTheStoreIsRefusedWithoutBlocking() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("passkeys.json")
        let watchdog = try FIFOWatchdog(fifoAt: path)
        let result = Result { () throws(PasskeyStoreError) in
            try FilePasskeyStore(path: path, protection: .insecurePlaintext)
        }
        #expect(!watchdog.finish(), "opening the store blocked on the FIFO until the watchdog opened it")
        #expect(throws: PasskeyStoreError.refusedFile(path: path, .notARegularFile)) { _ = try result.get() }
    }

    @Test func aFIFOAsTheLockFileIsRefusedWithoutBlocking() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("passkeys.json")
        let lock = directory.file(".passkeys.json.lock")
        let store = try FilePasskeyStore(path: path, protection: .insecurePlaintext)
        let watchdog = try FIFOWatchdog(fifoAt: lock)
        var failure: PasskeyStoreError?
        do {
            try await store.add(Fixtures.passkey(id: Array(repeating: 1, count: 16), user: [1], name: "alice"))
        } catch {
            failure = error
        }
        #expect(!watchdog.finish(), "taking the lock blocked on the FIFO until the watchdog opened it")
        #expect(failure == .refusedFile(path: lock, .notARegularFile))
    }

    @Test func aStoreOthersMayWriteIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("passkeys.json")
        #expect(FileManager.default.createFile(atPath: path, contents: Data("{}".utf8)))
        #expect(chmod(path, 0o602) == 0)
        #expect(throws: PasskeyStoreError.refusedFile(path: path, .writableByOthers(mode: 0o100602))) {
            _ = try FilePasskeyStore(path: path, protection: .insecurePlaintext)
        }
    }

    @Test(.enabled(if: geteuid() == 0, "chown to another user needs root (as in CI)"))
    func anotherUsersStoreIsRefused() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("passkeys.json")
        let store = try FilePasskeyStore(path: path, protection: .insecurePlaintext)
        try await store.add(Fixtures.passkey(id: Array(repeating: 1, count: 16), user: [1], name: "alice"))
        #expect(chown(path, 65534, 65534) == 0)
        #expect(throws: PasskeyStoreError.refusedFile(path: path, .ownedByAnotherUser(owner: 65534))) {
            _ = try FilePasskeyStore(path: path, protection: .insecurePlaintext)
        }
    }
}
