import Crypto
import Foundation
import HybridConformance
import HybridCore
import TestVectorFiles
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
        #expect(total == 440)
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

    /// A capture from a real phone may end with the phone's reply: our client's shutdown, sent after
    /// it, is not in the transcript and is not a mismatch.
    @Test func capturedSessionEndingAtTheReplyAcceptsOurTrailingShutdown() throws {
        let report = try Self.run(
            Self.withoutFrames(Self.capturedSession(), where: { $0["kind"] as? String == "shutdown" }))
        #expect(report.failures.map(\.description) == [])
        #expect(report.passed == 1)
    }

    /// Ending at the reply excuses only the shutdown: the frames the capture has are still compared
    /// (a request ciphertext with one bit flipped fails), and a corrupt reply still fails.
    @Test func capturedSessionEndingAtTheReplyStillComparesTheFramesItHas() throws {
        var document = try Self.withoutFrames(Self.capturedSession()) { $0["kind"] as? String == "shutdown" }
        var cases = try #require(document["cases"] as? [JSONObject])
        var frames = try #require(cases[0]["frames"] as? [JSONObject])
        let request = try #require(
            frames.firstIndex {
                $0["kind"] as? String == "ctap" && $0["direction"] as? String == "client-to-authenticator"
            })
        var ciphertext = try Hex.decode(#require(frames[request]["ciphertext"] as? String))
        ciphertext[0] ^= 0x01
        frames[request]["ciphertext"] = Hex.encode(ciphertext)
        cases[0]["frames"] = frames
        document["cases"] = cases
        let report = try Self.run(document)
        #expect(report.passed == 0)
        #expect(report.failures.first?.reason.contains("client frame \(request)") == true, "\(report.failures)")
        let corrupt = try Self.withoutFrames(Self.capturedSession(replyBitFlipped: true)) {
            $0["kind"] as? String == "shutdown"
        }
        #expect(try Self.run(corrupt).passed == 0)
    }

    /// The single case of `document` without the frames `drop` picks, renumbered.
    static func withoutFrames(_ document: JSONObject, where drop: (JSONObject) -> Bool) throws -> JSONObject {
        var document = document
        var cases = try #require(document["cases"] as? [JSONObject])
        var frames = try #require(cases[0]["frames"] as? [JSONObject])
        let before = frames.count
        frames.removeAll(where: drop)
        #expect(frames.count < before)
        for index in frames.indices { frames[index]["index"] = index }
        cases[0]["frames"] = frames
        document["cases"] = cases
        return document
    }

    /// The first case named `name` in `file`, changed by `edit`, as a one-case document.
    static func edited(_ file: String, case name: String? = nil, _ edit: (inout JSONObject) throws -> Void) throws
        -> JSONObject
    {
        var document = try load(file)
        let cases = try #require(document["cases"] as? [JSONObject])
        var testCase = try #require(name.map { name in cases.first { $0["name"] as? String == name } } ?? cases.first)
        try edit(&testCase)
        document["cases"] = [testCase]
        return document
    }

    /// Malformed vectors are failed cases, never a trap in the core: HKDF lengths outside 1…8160.
    @Test(arguments: [0, -1, -64, 8161, 1 << 40])
    func hkdfLengthOutOfRangeIsAFailedCase(length: Int) throws {
        let report = try Self.run(try Self.edited("hkdf.json") { $0["length"] = length })
        #expect(report.passed == 0 && report.failed == 1)
        #expect(report.failures.first?.reason.contains("length \(length) is outside") == true)
    }

    /// A linked session whose client nonce is not 16 bytes (ClientPayload requires 16).
    @Test(arguments: ["", "00", String(repeating: "ab", count: 17)])
    func linkedSessionWithAWrongLengthClientNonceIsAFailedCase(nonce: String) throws {
        let report = try Self.run(
            try Self.edited("session.json", case: "synthetic-s2-linked-flow") { testCase in
                var tunnel = try #require(testCase["tunnel"] as? JSONObject)
                tunnel["clientNonce"] = nonce
                testCase["tunnel"] = tunnel
            })
        #expect(report.passed == 0 && report.failed == 1)
        #expect(report.failures.first?.reason.contains("clientNonce is \(nonce.count / 2) bytes") == true)
    }

    /// A linked session with fewer than the two handshake frames.
    @Test(arguments: [0, 1])
    func linkedSessionWithTooFewFramesIsAFailedCase(frameCount: Int) throws {
        let report = try Self.run(
            try Self.edited("session.json", case: "synthetic-s2-linked-flow") { testCase in
                testCase["frames"] = Array(try #require(testCase["frames"] as? [JSONObject]).prefix(frameCount))
            })
        #expect(report.passed == 0 && report.failed == 1)
        #expect(report.failures.first?.reason.contains("has \(frameCount)") == true)
    }

    /// A QR session with no frames at all fails (it has no post-handshake frame to read).
    @Test func qrSessionWithoutFramesIsAFailedCase() throws {
        let report = try Self.run(
            try Self.edited("session.json", case: "synthetic-s1-qr-flow") { $0["frames"] = [JSONObject]() })
        #expect(report.passed == 0 && report.failed == 1)
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
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "conformance-\(UUID().uuidString)")
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
