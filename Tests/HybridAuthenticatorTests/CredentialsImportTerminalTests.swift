import Foundation
import HybridPresentation
import TestChildProcess
import Testing

/// `hybrid-authenticator credentials import` as users run it, on CXF documents whose text carries
/// terminal escape sequences (an OSC title, a CSI erase, C1 CSI, DEL, a bidi override): none of it
/// may reach the terminal; it is shown as `?`.
@Suite(.timeLimit(.minutes(2)))
struct CredentialsImportTerminalTests {
    /// The control and bidi scalars the documents carry.
    static let unsafe: [Unicode.Scalar] = ["\u{1B}", "\u{07}", "\u{9B}", "\u{7F}", "\u{202E}", "\r"]

    static func run(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        let binary = StoreConcurrencyTests.authenticatorBinary
        try #require(FileManager.default.isExecutableFile(atPath: binary), "build hybrid-authenticator first")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        let output = try await ChildProcess.run(process)
        return (
            output.status, String(decoding: output.stdout, as: UTF8.self),
            String(decoding: output.stderr, as: UTF8.self)
        )
    }

    static func expectNoControls(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for scalar in unsafe {
            #expect(
                !text.unicodeScalars.contains(scalar),
                "U+\(String(scalar.value, radix: 16)) reached: \(text.debugDescription)",
                sourceLocation: sourceLocation)
        }
    }

    /// Messages keep their line feeds and lose every other control; JSON keeps its value.
    @Test func messagesAndJSONCarryNoControls() throws {
        #expect(TerminalText.printableLines("a\u{1B}[2Jb\nc\rd\u{9B}e\u{202E}\n") == "a?[2Jb\nc?d?e?\n")
        let json = "{\"name\":\"x\u{9B}31m\u{202E}\u{7F}y\",\n\"n\":1}"
        let escaped = TerminalText.jsonEscaped(json)
        #expect(escaped == "{\"name\":\"x\\u009B31m\\u202E\\u007Fy\",\n\"n\":1}")
        for unsafe: Unicode.Scalar in ["\u{9B}", "\u{202E}", "\u{7F}"] {
            #expect(!escaped.unicodeScalars.contains(unsafe))
        }
        let before = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: AnyHashable]
        let after = try JSONSerialization.jsonObject(with: Data(escaped.utf8)) as? [String: AnyHashable]
        #expect(before == after)
    }

    /// A refused document: the error names the member and repeats its value (the HMAC algorithm)
    /// and the file name, both escaped.
    @Test func theRefusalShowsNoEscapeSequence() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let text = try CXFDocumentTests.appendixText.replacingOccurrences(
            of: "\"hmac-sha256\"", with: #""\u001b]0;owned\u0007\u009b2J\u202e""#)
        let file = directory.file("export\u{1B}[2K\r.json")
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        let result = try await Self.run(["credentials", "import", file, "--store", directory.file("store.json")])
        #expect(result.status == 1)
        #expect(
            result.stderr.contains("hmacCredentials.algorithm is ?]0;owned??2J?"), "\(result.stderr.debugDescription)")
        #expect(result.stderr.contains("export?[2K?.json"), "\(result.stderr.debugDescription)")
        Self.expectNoControls(result.stderr)
        Self.expectNoControls(result.stdout)
    }

    /// An imported document: the skipped credentials' types and titles, escaped.
    @Test func theSkippedCredentialsShowNoEscapeSequence() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let text = try CXFDocumentTests.appendixText
            .replacingOccurrences(of: "\"Home alarm\"", with: #""Home\u001b[2J\u009b31m alarm\u007f""#)
            .replacingOccurrences(of: "\"type\": \"note\"", with: #""type": "note\u001b]0;x\u0007\u202e""#)
        let file = directory.file("export.json")
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        let result = try await Self.run([
            "credentials", "import", file, "--store", directory.file("store.json"), "--insecure-plaintext-store",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("(note?]0;x??, \"Home?[2J?31m alarm?\")"), "\(result.stderr.debugDescription)")
        Self.expectNoControls(result.stderr)
        Self.expectNoControls(result.stdout)
    }
}
