import Crypto
import Foundation
import HybridConformance
import HybridCore
import Testing

/// The conformance runner itself: it must fail what is wrong, not only pass the shared files.
@Suite struct ConformanceRunnerTests {
    typealias JSONObject = [String: Any]

    static func load(_ file: String) throws -> JSONObject {
        let data = try Data(contentsOf: URL(fileURLWithPath: VectorFiles.path(file)))
        return try #require(try JSONSerialization.jsonObject(with: data) as? JSONObject)
    }

    static func run(_ document: JSONObject, label: String = "test") throws -> VectorReport {
        let data = try JSONSerialization.data(withJSONObject: document)
        return try VectorRunner().run(document: JSONValue.parse(data), label: label)
    }

    /// Every case of every shared file, with `valid` inverted, must fail and be named: a valid case
    /// claimed invalid is accepted by the core, and an invalid one claimed valid is rejected.
    @Test func everyCaseWithItsValidityInvertedFails() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: VectorFiles.directory)
            .filter { $0.hasSuffix(".json") }.sorted()
        #expect(files.count > 20)
        var total = 0
        for file in files {
            var document = try Self.load(file)
            let count = Self.invertValidity(&document)
            total += count
            let report = try Self.run(document, label: file)
            #expect(report.passed == 0, "\(file)")
            #expect(report.failed == count, "\(file)")
            #expect(report.fileErrors.isEmpty, "\(file)")
        }
        #expect(total == 405)
    }

    /// Inverts `valid` in every case (inner cases of a bundle too); returns the number of cases.
    private static func invertValidity(_ document: inout JSONObject) -> Int {
        guard var cases = document["cases"] as? [JSONObject] else { return 0 }
        var count = 0
        for index in cases.indices {
            if document["kind"] as? String == "bundle" {
                count += invertValidity(&cases[index])
                continue
            }
            count += 1
            if cases[index]["valid"] as? Bool == true {
                cases[index]["valid"] = false
                cases[index]["error"] = "cbor"
            } else {
                cases[index]["valid"] = true
                cases[index]["error"] = nil
                cases[index]["errorAlternatives"] = nil
            }
        }
        document["cases"] = cases
        return count
    }

    /// A captured session (a recorded phone: its ephemeral private key unknown) that runs to the
    /// phone's reply and the client's shutdown. Built from the synthetic S1 transcript with its own
    /// traffic keys; the client's shutdown ciphertext is S1's.
    static func capturedSession(replyBitFlipped: Bool = false) throws -> JSONObject {
        var file = try load("session.json")
        var cases = try #require(file["cases"] as? [JSONObject])
        var session = try #require(cases.first { $0["name"] as? String == "synthetic-s1-qr-flow" })
        var handshake = try #require(session["handshake"] as? JSONObject)
        handshake["responderEphemeralPrivate"] = nil
        session["handshake"] = handshake

        var frames = try #require(session["frames"] as? [JSONObject])
        var phone = TransportCrypter(
            readKey: SymmetricKey(data: try Hex.decode(#require(handshake["initiatorToResponderKey"] as? String))),
            writeKey: SymmetricKey(data: try Hex.decode(#require(handshake["responderToInitiatorKey"] as? String))))
        // The phone's crypter reproduces S1's phone frames, then seals the reply at seq 2.
        for frame in frames where frame["direction"] as? String == "authenticator-to-client" && frame["seq"] is Int {
            let sealed = try phone.encrypt(try Hex.decode(#require(frame["plaintext"] as? String)))
            #expect(Hex.encode(sealed) == frame["ciphertext"] as? String)
        }
        let reply: [UInt8] = [0x01, 0x00, 0xa1, 0x01, 0x64] + Array("none".utf8)
        var ciphertext = try phone.encrypt(reply)
        if replyBitFlipped { ciphertext[3] ^= 0x10 }
        let shutdownIndex = try #require(frames.firstIndex { $0["kind"] as? String == "shutdown" })
        frames.insert(
            [
                "index": 0, "direction": "authenticator-to-client", "kind": "ctap", "seq": 2,
                "plaintext": Hex.encode(reply), "ciphertext": Hex.encode(ciphertext),
            ], at: shutdownIndex)
        for index in frames.indices { frames[index]["index"] = index }
        session["frames"] = frames
        session["name"] = "captured-s1-with-reply"
        cases = [session]
        file["cases"] = cases
        return file
    }

    @Test func capturedSessionChecksTheClientUpToItsShutdown() throws {
        let report = try Self.run(Self.capturedSession())
        #expect(report.failures.map(\.description) == [])
        #expect(report.passed == 1)
    }

    @Test func capturedSessionWithACorruptReplyFails() throws {
        let report = try Self.run(Self.capturedSession(replyBitFlipped: true))
        #expect(report.passed == 0)
        #expect(report.failures.first?.name == "captured-s1-with-reply")
    }

    /// Kinds SCHEMA.md defines as always valid cannot carry an invalid case.
    @Test func invalidCaseOfAnAlwaysValidKindIsReported() throws {
        var document = try Self.load("hkdf.json")
        var cases = try #require(document["cases"] as? [JSONObject])
        cases[0]["valid"] = false
        cases[0]["error"] = "length"
        document["cases"] = cases
        let report = try Self.run(document)
        #expect(report.failed == 1)
        #expect(report.failures.first?.reason.contains("always valid") == true)
    }

    @Test func unreadableFilesAndUnknownKindsAreFileErrors() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("conformance-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("{".utf8).write(to: directory.appendingPathComponent("broken.json"))
        try Data(#"{"kind": "teleport", "cases": [{"name": "a", "valid": true}]}"#.utf8)
            .write(to: directory.appendingPathComponent("unknown.json"))
        let report = VectorRunner().run(paths: [directory.path, directory.appendingPathComponent("absent.json").path])
        #expect(report.fileErrors.count == 3)
        #expect(!report.succeeded)
        #expect(report.passed == 0 && report.failed == 0)
    }
}
