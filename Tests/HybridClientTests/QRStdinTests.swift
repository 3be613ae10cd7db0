import Foundation
import HybridClient
import HybridCommandLine
import TestChildProcess
import Testing

@testable import hybrid_client

#if canImport(Glibc)
    import Glibc
#endif

/// The QR text on standard input: `hybrid-client qr -` (or no argument) reads it there, so that
/// scripts never put the session's secret on a command line, where `ps` shows it to every local
/// user. The argument form still works.
@Suite(.timeLimit(.minutes(2)))
struct QRStdinTests {
    static var binary: URL { ClientCommandLingerTests.productsDirectory.appendingPathComponent("hybrid-client") }
    /// The `basic` row of protocol.md's Chromium QR table (§ Chromium test vectors).
    static let url =
        "FIDO:/21451485302227106379487559113723092434570048571579929725294386093726313840430492013630000000134226708900000000000000000000000000000000"

    static func run(_ arguments: [String], input: String) async throws -> ChildProcess.Output {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        return try await ChildProcess.run(process, input: Data(input.utf8))
    }

    /// The binary draws the same code from standard input (with a blank line and a CR before it)
    /// as from the argument.
    @Test(arguments: [["qr", "-"], ["qr"]])
    func theBinaryReadsTheQRTextFromStandardInput(arguments: [String]) async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary.path), "build hybrid-client first")
        let fromArgument = try await Self.run(["qr", Self.url], input: "")
        #expect(fromArgument.status == 0)
        let fromStdin = try await Self.run(arguments, input: "\n  \(Self.url)\r\nnot read\n")
        #expect(fromStdin.status == 0, "stderr: \(String(decoding: fromStdin.stderr, as: UTF8.self))")
        #expect(!fromStdin.stdout.isEmpty)
        #expect(fromStdin.stdout == fromArgument.stdout)
    }

    @Test func emptyStandardInputIsAClearError() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary.path), "build hybrid-client first")
        let output = try await Self.run(["qr", "-"], input: "\n\n")
        #expect(output.status != 0)
        #expect(
            String(decoding: output.stderr, as: UTF8.self).contains(
                "no QR code: give the FIDO:/ text on standard input"))
    }

    @Test func theArgumentIsOptional() throws {
        let command = try #require(try HybridClientCommand.parseAsRoot(["qr"]) as? ShowQRCommand)
        #expect(command.text == nil)
        let dash = try #require(try HybridClientCommand.parseAsRoot(["qr", "-"]) as? ShowQRCommand)
        #expect(dash.text == "-")
    }

    /// Reading is bounded: a line longer than the limit, or only blank lines up to it, is refused.
    @Test func theReadIsBounded() throws {
        func lines(_ text: String, limit: Int) throws(QRTextInputError) -> String {
            var ends: [Int32] = [0, 0]
            precondition(pipe(&ends) == 0)
            let bytes = Array(text.utf8)
            precondition(write(ends[1], bytes, bytes.count) == bytes.count)
            close(ends[1])
            defer { close(ends[0]) }
            return try QRTextInput.firstNonEmptyLine(of: ends[0], limit: limit)
        }
        #expect(try lines("\n\tFIDO:/1 \nrest", limit: 64) == "FIDO:/1")
        #expect(try lines("FIDO:/1", limit: 64) == "FIDO:/1")  // no newline at the end
        #expect(throws: QRTextInputError.tooLong(limit: 8)) { try lines("FIDO:/12345678\n", limit: 8) }
        #expect(throws: QRTextInputError.tooLong(limit: 8)) { try lines(String(repeating: "\n", count: 20), limit: 8) }
        #expect(throws: QRTextInputError.noInput) { try lines(" \n", limit: 64) }
    }
}
