import Crypto
import Foundation
import HybridAuthenticator
import HybridCore
import Testing

@testable import hybrid_authenticator

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct FilePasskeyStoreTests {
    static let fast = ScryptParameters.insecureFastForTesting

    static func open(_ path: String, _ protection: FilePasskeyStore.Protection) throws -> FilePasskeyStore {
        try FilePasskeyStore(
            path: path, protection: protection, newStoreParameters: fast, random: CountingRandom().source)
    }

    static func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    static func mode(_ path: String) -> mode_t {
        var info = stat()
        guard stat(path, &info) == 0 else { return 0 }
        return info.st_mode & 0o777
    }

    static func expectSameKeys(_ a: [Passkey], _ b: [Passkey], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(a.map(\.metadata) == b.map(\.metadata), sourceLocation: sourceLocation)
        #expect(
            a.map { Array($0.privateKey.rawRepresentation) } == b.map { Array($0.privateKey.rawRepresentation) },
            sourceLocation: sourceLocation)
    }

    @Test(arguments: [false, true])
    func roundTripsEveryField(encrypted: Bool) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("store/nested/passkeys.json")
        let protection: FilePasskeyStore.Protection = encrypted ? .passphrase("correct horse") : .insecurePlaintext
        let store = try Self.open(path, protection)
        #expect(await store.list().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: path))
        var passkeys = [
            Fixtures.passkey(id: [1, 1], user: [1], name: "alice", created: 1),
            Fixtures.passkey(id: [2, 2], user: [2], name: "bob", discoverable: false, created: 2),
            Fixtures.passkey(rp: "other.example", id: [3, 3], user: [1], name: "alice", created: 3),
        ]
        passkeys[0].metadata.rpName = "Example"
        passkeys[1].metadata.userDisplayName = nil
        for passkey in passkeys { try await store.add(passkey) }
        #expect(try await store.incrementSignCount(credentialID: [2, 2]) == 1)
        passkeys[1].metadata.signCount = 1

        let reopened = try Self.open(path, protection)
        Self.expectSameKeys(await reopened.passkeys(forRPID: "example.com"), [passkeys[1], passkeys[0]])
        #expect(await reopened.list().map(\.credentialID) == [[3, 3], [2, 2], [1, 1]])
        #expect(reopened.isEncrypted == encrypted)
        #expect(try FilePasskeyStore.metadata(atPath: path) == (await reopened.list()))
        #expect(try FilePasskeyStore.storedProtection(atPath: path) == (encrypted ? .encrypted : .plaintext))

        // Private keys appear in the file only in plaintext mode.
        let text = String(decoding: try Self.bytes(path), as: UTF8.self)
        let scalar = Hex.encode(passkeys[0].privateKey.rawRepresentation)
        #expect(text.contains(scalar) == !encrypted)
        #expect(Self.mode(path) == 0o600)
        #expect(Self.mode(directory.file("store/nested")) == 0o700)
        #expect(Self.mode(directory.file("store")) == 0o700)
    }

    @Test func deleteAndCounterPersist() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("passkeys.json")
        let store = try Self.open(path, .insecurePlaintext)
        try await store.add(Fixtures.passkey(id: [1], user: [1], name: "a"))
        try await store.add(Fixtures.passkey(id: [2], user: [2], name: "b"))
        #expect(try await store.delete(credentialID: [1]) == true)
        #expect(try await store.delete(credentialID: [1]) == false)
        await #expect(throws: PasskeyStoreError.unknownCredential) {
            try await store.incrementSignCount(credentialID: [1])
        }
        #expect(try await store.incrementSignCount(credentialID: [2]) == 1)
        #expect(try await store.incrementSignCount(credentialID: [2]) == 2)
        let reopened = try Self.open(path, .insecurePlaintext)
        #expect(await reopened.list().map(\.credentialID) == [[2]])
        #expect(await reopened.list().first?.signCount == 2)
    }

    @Test func discoverablePasskeyReplacesTheSameAccount() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let store = try Self.open(directory.file("p.json"), .insecurePlaintext)
        try await store.add(Fixtures.passkey(id: [1], user: [7], name: "a"))
        try await store.add(Fixtures.passkey(id: [2], user: [7], name: "a", discoverable: false))
        try await store.add(Fixtures.passkey(id: [3], user: [7], name: "a", created: 5))
        #expect(await store.list().map(\.credentialID) == [[3], [2]])
    }

    @Test func wrongPassphraseIsTypedAndLeavesTheFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("passkeys.json")
        let store = try Self.open(path, .passphrase("right"))
        try await store.add(Fixtures.passkey(id: [1], user: [1], name: "a"))
        let before = try Self.bytes(path)
        #expect(throws: PasskeyStoreError.wrongPassphrase) { try Self.open(path, .passphrase("wrong")) }
        #expect(throws: PasskeyStoreError.passphraseRequired) { try Self.open(path, .insecurePlaintext) }
        #expect(try Self.bytes(path) == before)
        #expect(await store.verifyPassphrase("right"))
        #expect(!(await store.verifyPassphrase("wrong")))
        #expect(!(await store.verifyPassphrase("")))

        let plainPath = directory.file("plain.json")
        try await Self.open(plainPath, .insecurePlaintext).add(Fixtures.passkey(id: [1], user: [1], name: "a"))
        #expect(throws: PasskeyStoreError.notEncrypted) { try Self.open(plainPath, .passphrase("x")) }
        #expect(!(await (try Self.open(plainPath, .insecurePlaintext)).verifyPassphrase("x")))
    }

    @Test func passphraseIsNormalizedToNFC() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("passkeys.json")
        try await Self.open(path, .passphrase("caf\u{E9}")).add(Fixtures.passkey(id: [1], user: [1], name: "a"))
        #expect(throws: Never.self) { try Self.open(path, .passphrase("cafe\u{301}")) }
    }

    /// Damaged or edited files: each is a typed error, and the file is never rewritten. In an
    /// encrypted store every edit of a value is caught by the MAC (StoreFormatTests goes through
    /// them all); a plaintext store, which has none, still checks the structure.
    @Test(arguments: [true, false])
    func corruptFilesAreTypedErrorsAndNeverRewritten(encrypted: Bool) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("passkeys.json")
        let protection: FilePasskeyStore.Protection = encrypted ? .passphrase("pw") : .insecurePlaintext
        let store = try Self.open(path, protection)
        try await store.add(Fixtures.passkey(id: [1], user: [1], name: "a"))
        try await store.add(Fixtures.passkey(id: [2], user: [2], name: "b"))
        let good = try Self.bytes(path)
        let json = try #require(try JSONSerialization.jsonObject(with: good) as? [String: Any])

        func variant(_ change: (inout [String: Any]) -> Void) throws -> Data {
            var copy = json
            change(&copy)
            return try JSONSerialization.data(withJSONObject: copy)
        }
        func credential(_ change: (inout [[String: Any]]) -> Void) throws -> Data {
            try variant { document in
                var list = document["credentials"] as? [[String: Any]] ?? []
                change(&list)
                document["credentials"] = list
            }
        }
        func protectionRecord(_ change: (inout [String: Any]) -> Void) throws -> Data {
            try variant { document in
                var protection = document["protection"] as? [String: Any] ?? [:]
                change(&protection)
                document["protection"] = protection
            }
        }
        // Edits the MAC catches when encrypted; without one, the structure checks do (nil: any
        // `corrupt` error).
        let macOrCorrupt: PasskeyStoreError? = encrypted ? .authenticationFailed : nil
        let corruptions: [(String, Data, PasskeyStoreError?)] = [
            ("empty", Data(), nil),
            ("garbage", Data("not json".utf8), nil),
            ("truncated", good.prefix(good.count / 2), nil),
            ("wrong format", try variant { $0["format"] = "something else" }, nil),
            ("no credentials key", try variant { $0["credentials"] = nil }, nil),
            ("bad hex", try credential { $0[0]["id"] = "zz" }, macOrCorrupt),
            ("empty id", try credential { $0[0]["id"] = "" }, macOrCorrupt),
            ("duplicate id", try credential { $0[1]["id"] = $0[0]["id"] }, macOrCorrupt),
            ("unknown mode", try protectionRecord { $0["mode"] = "rot13" }, nil),
        ]
        for (name, bytes, expected) in corruptions {
            try bytes.write(to: URL(fileURLWithPath: path))
            do {
                _ = try Self.open(path, protection)
                Issue.record("\(name): opened")
            } catch let error as PasskeyStoreError {
                switch (expected, error) {
                case (nil, .corrupt): break
                case (let expected?, let error) where expected == error: break
                default: Issue.record("\(name): \(error)")
                }
            }
            #expect(try Self.bytes(path) == bytes, "\(name): file changed")
        }
        if encrypted {
            let swapped = try credential { list in
                let key = list[0]["privateKey"]
                list[0]["privateKey"] = list[1]["privateKey"]
                list[1]["privateKey"] = key
            }
            try swapped.write(to: URL(fileURLWithPath: path))
            #expect(throws: PasskeyStoreError.authenticationFailed) { try Self.open(path, protection) }
            try (try protectionRecord { $0["scryptN"] = 1 << 30 }).write(to: URL(fileURLWithPath: path))
            #expect(throws: PasskeyStoreError.scryptParametersOutOfRange(ScryptParameters(n: 1 << 30, r: 8, p: 1))) {
                try Self.open(path, protection)
            }
        }
        try (try variant { $0["version"] = 3 }).write(to: URL(fileURLWithPath: path))
        #expect(throws: PasskeyStoreError.unsupportedVersion(3)) { try Self.open(path, protection) }
    }

    /// A child process adds passkeys 1, 2, 3, … one write each and is killed with SIGKILL at a
    /// random moment, most likely inside a write. The store must open with passkeys 1…k for
    /// some k, each complete and intact.
    @Test(arguments: [40, 80, 120, 160, 200, 250, 300, 400, 500, 600])
    func killedWriterLeavesAValidCompleteStore(delayMilliseconds: Int) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("passkeys.json")
        await #expect(processExitsWith: .signal(SIGKILL)) {
            [path = path as String, delayMilliseconds = delayMilliseconds as Int] in
            let killer = Thread {
                usleep(useconds_t(delayMilliseconds * 1000))
                kill(getpid(), SIGKILL)
            }
            let store = try FilePasskeyStore(
                path: path, protection: .passphrase("pw"), newStoreParameters: .insecureFastForTesting)
            killer.start()
            var index: UInt32 = 0
            while true {
                index += 1
                try await store.add(CrashFixture.passkey(index))
            }
        }
        guard FileManager.default.fileExists(atPath: path) else { return }  // killed before the first write
        let store = try FilePasskeyStore(path: path, protection: .passphrase("pw"))
        let passkeys = await store.passkeys(forRPID: "crash.example")
        let count = UInt32(passkeys.count)
        #expect(count >= 1)
        // Newest first: count, count-1, …, 1, each exactly as written.
        for (offset, passkey) in passkeys.enumerated() {
            let expected = CrashFixture.passkey(count - UInt32(offset))
            #expect(passkey.metadata == expected.metadata)
            #expect(passkey.privateKey.rawRepresentation == expected.privateKey.rawRepresentation)
        }
        // The kernel released the dead writer's lock: the next write goes through and removes
        // any temporary file it left.
        try await store.add(CrashFixture.passkey(count + 1))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(names == [".passkeys.json.lock", "passkeys.json"])
    }

    /// The resolution itself is XDGBaseDirectoryTests'; this is the file's place in it, which the
    /// executable chooses (the library takes the path it is given).
    @Test func defaultPathIsInTheDataDirectory() {
        #expect(
            StoreOptions.defaultPath(environment: ["XDG_DATA_HOME": "/data"])
                == "/data/hybrid-authenticator/passkeys.json")
    }

    /// A passkey made here keeps counter 0 in the file; one that counts has its count stored.
    @Test func engineOverAFileStorePersistsCounters() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("passkeys.json")
        let store = try Self.open(path, .passphrase("pw"))
        let authenticator = Fixtures.authenticator(store: store)
        #expect(await authenticator.handle(Fixtures.makeCredential().encoded).first == 0x00)
        #expect(await authenticator.handle(Fixtures.getAssertion().encoded).first == 0x00)
        #expect(try FilePasskeyStore.metadata(atPath: path).first?.signCount == 0)
        var counting = Fixtures.passkey(rp: "counting.example", id: [7], user: [7], name: "carol")
        counting.metadata.signCount = 1
        try await store.add(counting)
        #expect(await authenticator.handle(Fixtures.getAssertion(rp: "counting.example").encoded).first == 0x00)
        #expect(await authenticator.handle(Fixtures.getAssertion(rp: "counting.example").encoded).first == 0x00)
        #expect(try FilePasskeyStore.metadata(atPath: path).first { $0.rpID == "counting.example" }?.signCount == 3)
    }
}

/// Passkeys fully determined by their index, so the parent can check what the child wrote.
enum CrashFixture {
    static func passkey(_ index: UInt32) -> Passkey {
        let bytes = withUnsafeBytes(of: index.bigEndian, Array.init)
        let scalar = Array(SHA256.hash(data: bytes))
        return Passkey(
            metadata: PasskeyMetadata(
                credentialID: bytes + bytes, rpID: "crash.example", userHandle: bytes, userName: "user \(index)",
                userDisplayName: nil, signCount: index, createdAt: Date(timeIntervalSince1970: Double(index)),
                isDiscoverable: false),
            // A SHA-256 output is a valid P-256 scalar with overwhelming probability.
            privateKey: (try? P256.Signing.PrivateKey(rawRepresentation: scalar)) ?? P256.Signing.PrivateKey())
    }
}
