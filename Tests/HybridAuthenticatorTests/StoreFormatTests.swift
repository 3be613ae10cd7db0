import Crypto
import Foundation
import HybridAuthenticator
import HybridCore
import TestChildProcess
import Testing

/// The store file's format 2: a MAC over the whole file, migration from format 1, and the bounds
/// on the scrypt parameters. Expected values come from Python (`cryptography`, `hashlib`, `cbor2`),
/// written from the format's description, not from this code.
@Suite(.timeLimit(.minutes(5)))
struct StoreFormatTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/passkey-store").path
    static let passphrase = "fixture passphrase"

    static func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }
    static func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// An encrypted format-2 store with two passkeys, every optional field set on one of them.
    static func makeStore(in directory: TemporaryDirectory) async throws -> (path: String, passkeys: [Passkey]) {
        let path = directory.file("passkeys.json")
        let store = try FilePasskeyStore(
            path: path, protection: .passphrase(passphrase), newStoreParameters: .insecureFastForTesting)
        var first = Fixtures.passkey(id: Array(repeating: 0xA1, count: 16), user: [1, 2], name: "alice", created: 10)
        first.metadata.rpName = "Example"
        let second = Fixtures.passkey(
            rp: "other.example", id: Array(repeating: 0xB2, count: 16), user: [3], name: "bob", discoverable: false,
            created: 20)
        try await store.add(first)
        try await store.add(second)
        #expect(try await store.incrementSignCount(credentialID: first.credentialID) == 1)
        first.metadata.signCount = 1
        return (path, [second, first])
    }

    static func openError(_ path: String, _ passphrase: String = passphrase) -> PasskeyStoreError? {
        do {
            _ = try FilePasskeyStore(path: path, protection: .passphrase(passphrase))
            return nil
        } catch {
            return error
        }
    }

    // MARK: Python checks the documented format

    /// Python derives the keys from the passphrase (scrypt, then HKDF for the MAC key), checks the
    /// MAC over the file minus its `"mac"` member and opens every private key with the format-2
    /// associated data. It reports what it found; the test compares it with what was stored.
    @Test func pythonVerifiesTheMACAndOpensTheKeys() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let (path, passkeys) = try await Self.makeStore(in: directory)
        let script = #"""
            import hashlib, hmac, json, sys, unicodedata, cbor2
            from cryptography.hazmat.primitives import hashes
            from cryptography.hazmat.primitives.kdf.hkdf import HKDF
            from cryptography.hazmat.primitives.ciphers.aead import AESGCM
            raw = open(sys.argv[1], "rb").read()
            doc = json.loads(raw)
            pr = doc["protection"]
            key = hashlib.scrypt(unicodedata.normalize("NFC", sys.argv[2]).encode(), salt=bytes.fromhex(pr["salt"]),
                                 n=pr["scryptN"], r=pr["scryptR"], p=pr["scryptP"], maxmem=1 << 30, dklen=32)
            def unbox(box, aad):
                box = bytes.fromhex(box)
                return AESGCM(key).decrypt(box[:12], box[12:], aad)
            unbox(pr["check"], b"hybrid-authenticator/v1 passphrase check")
            mac_key = HKDF(hashes.SHA256(), 32, None, b"hybrid-authenticator/v2 store MAC key").derive(key)
            member = b',\n  "mac" : "' + doc["mac"].encode() + b'"\n}\n'
            assert raw.endswith(member)
            body = raw[:-len(member)] + b"\n}\n"
            expected = hmac.new(mac_key, b"hybrid-authenticator/v2 store MAC\n" + body, hashlib.sha256).hexdigest()
            scalars = [unbox(c["privateKey"], b"hybrid-authenticator/v2 credential key"
                             + cbor2.dumps([bytes.fromhex(c["id"]), c["rpId"], bytes.fromhex(c["userHandle"])])).hex()
                       for c in doc["credentials"]]
            print(json.dumps({"version": doc["version"], "macValid": hmac.compare_digest(expected, doc["mac"]),
                              "scalars": scalars, "signCounts": [c["signCount"] for c in doc["credentials"]]}))
            """#
        let output = try await Self.python(script, arguments: [path, Self.passphrase])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        #expect(report["version"] as? Int == 2)
        #expect(report["macValid"] as? Bool == true)
        #expect(report["scalars"] as? [String] == passkeys.map { Hex.encode($0.privateKey.rawRepresentation) })
        #expect(report["signCounts"] as? [Int] == passkeys.map { Int($0.metadata.signCount) })
    }

    // MARK: Tampering

    /// Every member of the file, one at a time, gets a different value in place (the rest of the
    /// file byte for byte the same). Opening must fail with a typed error: `authenticationFailed`
    /// for everything the MAC covers, the header's own errors for the header. Members are found
    /// in the file, so a field added later is tested without changing this test.
    @Test func changingAnyMemberFailsAuthentication() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let (path, _) = try await Self.makeStore(in: directory)
        let original = try Self.text(path)
        let member = /"(?<key>[A-Za-z]+)"\s*:\s*(?<value>"(?:[^"\\]|\\.)*"|-?[0-9][0-9.eE+\-]*|true|false|null)/
        var seen: Set<String> = []
        for match in original.matches(of: member) {
            let key = String(match.output.key)
            seen.insert(key)
            let tampered = original.replacingCharacters(
                in: match.output.value.startIndex..<match.output.value.endIndex, with: Self.changed(match.output.value))
            try Self.write(tampered, to: path)
            let error = Self.openError(path)
            switch key {
            case "format", "mode":
                guard case .corrupt = error else {
                    Issue.record("\(key): \(String(describing: error))")
                    continue
                }
            case "version":
                #expect(error == .unsupportedVersion(3), "\(key)")
            case "salt", "check", "scryptP":  // a different key: the check box does not open
                #expect(error == .wrongPassphrase, "\(key)")
            case "scryptN", "scryptR":
                guard case .scryptParametersOutOfRange = error else {
                    Issue.record("\(key): \(String(describing: error))")
                    continue
                }
            default:
                #expect(error == .authenticationFailed, "\(key)")
            }
        }
        let expected: Set = [
            "format", "version", "mode", "salt", "scryptN", "scryptR", "scryptP", "check", "id", "rpId", "rpName",
            "userHandle", "userName", "userDisplayName", "discoverable", "signCount", "created", "privateKey", "mac",
        ]
        #expect(seen.isSuperset(of: expected), "members not found: \(expected.subtracting(seen))")

        // Whitespace, a removed passkey, a stripped MAC: all fail too.
        let edits: [(String, String)] = [
            ("space", original.replacingOccurrences(of: "\"signCount\" :", with: "\"signCount\"  :")),
            ("no mac", original.replacing(/,\n  "mac" : "[0-9a-f]+"/, with: "")),
            ("one passkey fewer", try Self.withoutFirstCredential(original)),
        ]
        for (name, text) in edits {
            #expect(text != original, "\(name) changed nothing")
            try Self.write(text, to: path)
            #expect(Self.openError(path) == .authenticationFailed, "\(name)")
        }
        try Self.write(original, to: path)
        #expect(Self.openError(path) == nil)
    }

    /// A format-2 file turned back into format 1 (version 1, no MAC) to roll a counter back: its
    /// private keys were sealed for format 2, so it does not open.
    @Test func downgradingToFormatOneFails() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let (path, _) = try await Self.makeStore(in: directory)
        let downgraded = try Self.text(path)
            .replacing(/,\n  "mac" : "[0-9a-f]+"/, with: "")
            .replacingOccurrences(of: "\"version\" : 2", with: "\"version\" : 1")
            .replacingOccurrences(of: "\"signCount\" : 1", with: "\"signCount\" : 0")
        try Self.write(downgraded, to: path)
        #expect(Self.openError(path) == .authenticationFailed)
    }

    // MARK: Migration

    /// `store-v1.json` (written by make_v1_fixture.py) opens with the values the script put in,
    /// and the next write turns it into format 2, which opens again and which Python verifies.
    @Test func formatOneOpensAndIsRewrittenAsFormatTwo() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("passkeys.json")
        try FileManager.default.copyItem(atPath: Self.fixtures + "/store-v1.json", toPath: path)
        #expect(Self.openError(path, "wrong") == .wrongPassphrase)

        let store = try FilePasskeyStore(path: path, protection: .passphrase(Self.passphrase))
        let alice = try #require(await store.passkeys(forRPID: "example.com").first)
        let bob = try #require(await store.passkeys(forRPID: "other.example").first)
        let aliceID = Array(repeating: UInt8(0xC1), count: 16)
        #expect(
            alice.metadata
                == PasskeyMetadata(
                    credentialID: aliceID, rpID: "example.com", rpName: "Example", userHandle: [1, 2],
                    userName: "alice",
                    userDisplayName: "Alice A.", signCount: 7, createdAt: Date(timeIntervalSince1970: 1_767_225_600),
                    isDiscoverable: true))
        #expect(
            bob.metadata
                == PasskeyMetadata(
                    credentialID: Array(repeating: 0xC2, count: 16), rpID: "other.example", userHandle: [3],
                    userName: "bob",
                    signCount: 0, createdAt: Date(timeIntervalSince1970: 1_767_312_000.5), isDiscoverable: false))
        // sha256("fixture key 1"), sha256("fixture key 2")
        #expect(
            Hex.encode(alice.privateKey.rawRepresentation)
                == "9f5a5494ce08b80d24cb65092a8d6eb90f6c32f4d6ced81f8755ae6f356fc0fd")
        #expect(
            Hex.encode(bob.privateKey.rawRepresentation)
                == "7e030c60395e0d3cc41ad979cfd5bb01b6ca8a2d781b98bf8dc2d5902b34a8e5")
        #expect(try Self.text(path) == (try Self.text(Self.fixtures + "/store-v1.json")), "opening must not write")

        #expect(try await store.incrementSignCount(credentialID: aliceID) == 8)
        let migrated = try Self.text(path)
        #expect(migrated.contains("\"version\" : 2") && migrated.contains("\"mac\" : \""))
        let reopened = try FilePasskeyStore(path: path, protection: .passphrase(Self.passphrase))
        #expect(await reopened.list().map(\.signCount).sorted() == [0, 8])
        #expect(
            await reopened.passkeys(forRPID: "example.com").first?.privateKey.rawRepresentation
                == alice.privateKey.rawRepresentation)
        let output = try await Self.python(
            #"""
            import hashlib, hmac, json, sys
            from cryptography.hazmat.primitives import hashes
            from cryptography.hazmat.primitives.kdf.hkdf import HKDF
            raw = open(sys.argv[1], "rb").read(); doc = json.loads(raw); pr = doc["protection"]
            key = hashlib.scrypt(sys.argv[2].encode(), salt=bytes.fromhex(pr["salt"]), n=pr["scryptN"], r=pr["scryptR"],
                                 p=pr["scryptP"], maxmem=1 << 30, dklen=32)
            mac_key = HKDF(hashes.SHA256(), 32, None, b"hybrid-authenticator/v2 store MAC key").derive(key)
            member = b',\n  "mac" : "' + doc["mac"].encode() + b'"\n}\n'
            body = raw[:-len(member)] + b"\n}\n"
            print(hmac.compare_digest(hmac.new(mac_key, b"hybrid-authenticator/v2 store MAC\n" + body, hashlib.sha256).hexdigest(), doc["mac"]))
            """#, arguments: [path, Self.passphrase])
        #expect(output.trimmingCharacters(in: .whitespacesAndNewlines) == "True")
    }

    /// Format 1 had no MAC: a counter edited in a format-1 file is not detected (the limit of
    /// reading the old format), but the migration then authenticates what it read from then on.
    @Test func formatOneIsReadWithoutAMAC() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("passkeys.json")
        let edited = try Self.text(Self.fixtures + "/store-v1.json").replacingOccurrences(
            of: "\"signCount\": 7", with: "\"signCount\": 3")
        try Self.write(edited, to: path)
        #expect(try FilePasskeyStore.metadata(atPath: path).contains { $0.signCount == 3 })
        #expect(Self.openError(path) == nil)
    }

    // MARK: scrypt bounds

    @Test(arguments: [
        // The accepted corners: 16 MiB and 256 MiB, N at both ends, r and p at their maximum.
        (ScryptParameters(n: 1 << 14, r: 8, p: 1), true), (ScryptParameters(n: 1 << 17, r: 1, p: 1), true),
        (ScryptParameters(n: 1 << 20, r: 2, p: 1), true), (ScryptParameters(n: 1 << 18, r: 8, p: 4), true),
        (ScryptParameters.recommended, true),
        // Too weak: N below 2^14, or under 16 MiB.
        (ScryptParameters(n: 1 << 13, r: 8, p: 1), false), (ScryptParameters(n: 1 << 14, r: 4, p: 1), false),
        (ScryptParameters(n: 16, r: 1, p: 1), false), (ScryptParameters(n: 1 << 16, r: 1, p: 1), false),
        // Too costly: over 256 MiB, N above 2^20, r above 8, p above 4.
        (ScryptParameters(n: 1 << 20, r: 4, p: 1), false), (ScryptParameters(n: 1 << 21, r: 1, p: 1), false),
        (ScryptParameters(n: 1 << 14, r: 16, p: 1), false), (ScryptParameters(n: 1 << 17, r: 8, p: 5), false),
        (ScryptParameters(n: 1 << 20, r: 32, p: 16), false),
        // Not valid at all.
        (ScryptParameters(n: (1 << 17) + 1, r: 8, p: 1), false), (ScryptParameters(n: 0, r: 8, p: 1), false),
        (ScryptParameters(n: 1 << 17, r: 0, p: 1), false), (ScryptParameters(n: 1 << 17, r: 8, p: 0), false),
        (ScryptParameters(n: -(1 << 17), r: 8, p: 1), false), (ScryptParameters(n: Int.max, r: Int.max, p: 1), false),
    ])
    func scryptParametersAreBounded(parameters: ScryptParameters, accepted: Bool) {
        #expect(parameters.isAcceptable == accepted)
    }

    /// Out-of-range parameters in a file, or asked for a new store, are a typed error raised
    /// before any derivation (a 4 GiB one would not return quickly on this machine).
    @Test func outOfRangeParametersAreATypedError() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("passkeys.json")
        for (n, r, p) in [(1 << 20, 32, 16), (16, 1, 1), (1 << 21, 8, 1)] {
            let text = try Self.text(Self.fixtures + "/store-v1.json")
                .replacingOccurrences(of: "\"scryptN\": 16384", with: "\"scryptN\": \(n)")
                .replacingOccurrences(of: "\"scryptR\": 8", with: "\"scryptR\": \(r)")
                .replacingOccurrences(of: "\"scryptP\": 1", with: "\"scryptP\": \(p)")
            try Self.write(text, to: path)
            #expect(Self.openError(path) == .scryptParametersOutOfRange(ScryptParameters(n: n, r: r, p: p)))
        }
        let weak = ScryptParameters(n: 16, r: 1, p: 1)
        #expect(throws: PasskeyStoreError.scryptParametersOutOfRange(weak)) {
            try FilePasskeyStore(
                path: directory.file("new.json"), protection: .passphrase("x"), newStoreParameters: weak)
        }
    }

    // MARK: Plaintext

    /// An insecure plaintext store has no key, so no MAC: it is written and read without one.
    @Test func plaintextStoresHaveNoMAC() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("plain.json")
        try await FilePasskeyStore(path: path, protection: .insecurePlaintext).add(
            Fixtures.passkey(id: [1], user: [1], name: "a"))
        let text = try Self.text(path)
        #expect(text.contains("\"version\" : 2") && !text.contains("\"mac\""))
        try Self.write(text.replacingOccurrences(of: "\"signCount\" : 0", with: "\"signCount\" : 5"), to: path)
        #expect(await (try FilePasskeyStore(path: path, protection: .insecurePlaintext)).list().first?.signCount == 5)
    }

    // MARK: helpers

    static func changed(_ value: Substring) -> String {
        switch value {
        case "true": return "false"
        case "false": return "true"
        case "null": return "0"
        default: break
        }
        var characters = Array(value)
        let index = value.hasPrefix("\"") ? characters.count - 2 : characters.count - 1
        characters[index] =
            switch characters[index] {
            case "9": "8"
            case "0"..."8": Character(UnicodeScalar(characters[index].asciiValue! + 1))
            case "f": "e"
            case "a"..."e": Character(UnicodeScalar(characters[index].asciiValue! + 1))
            default: characters[index] == "x" ? "y" : "x"
            }
        return String(characters)
    }

    static func withoutFirstCredential(_ text: String) throws -> String {
        let start = try #require(text.range(of: "\"credentials\" : [\n    {"))
        let end = try #require(text.range(of: "\n    },\n    {", range: start.upperBound..<text.endIndex))
        return text.replacingCharacters(in: start.upperBound..<end.upperBound, with: "")
    }

    /// Runs `python3 -c script arguments…` and returns its standard output.
    static func python(_ script: String, arguments: [String]) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + arguments
        let output = try await ChildProcess.run(process)
        #expect(
            output.status == 0,
            "python3 failed (needs cryptography and cbor2: scripts/setup.sh): \(String(decoding: output.stderr, as: UTF8.self))"
        )
        return String(decoding: output.stdout, as: UTF8.self)
    }
}
