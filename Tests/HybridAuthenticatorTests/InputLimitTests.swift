import Foundation
import HybridAuthenticator
import HybridCommandLine
import TestChildProcess
import Testing

@testable import HybridLocalFiles
@testable import HybridPresentation
@testable import hybrid_authenticator

#if canImport(Glibc)
    import Glibc
#endif

/// What the authenticator reads is capped: the QR text on standard input, the store file, the
/// QR image file. Past the cap it stops with a typed error, holding at most the cap in memory;
/// the endless inputs below (/dev/zero, `yes`) would never end otherwise.
@Suite(.timeLimit(.minutes(5)))
struct InputLimitTests {
    /// A pipe holding `text`, its write end closed; returns the read end.
    static func pipe(holding text: String) throws -> Int32 {
        var ends: [Int32] = [0, 0]
        try #require(Glibc.pipe(&ends) == 0)
        let bytes = Array(text.utf8)
        try #require(write(ends[1], bytes, bytes.count) == bytes.count)
        close(ends[1])
        return ends[0]
    }

    @Test func theQRLineIsTheFirstNonBlankOneAndNothingAfterItIsConsumed() throws {
        let fd = try Self.pipe(holding: "\n  \r\n\t\n  FIDO:/123456 \r\nnext line\n")
        defer { close(fd) }
        #expect(try QRTextInput.firstNonEmptyLine(of: fd, limit: 100) == "FIDO:/123456")
        #expect(try readBoundedLine(fd, limit: 100) == Array("next line".utf8))
        #expect(try readBoundedLine(fd, limit: 100) == nil)
    }

    @Test func endOfInputWithoutALineIsTyped() throws {
        let fd = try Self.pipe(holding: "\n \n")
        defer { close(fd) }
        #expect(throws: QRTextInputError.noInput) { try QRTextInput.firstNonEmptyLine(of: fd, limit: 100) }
    }

    /// The cap counts every byte read, blank lines included; a line of exactly the cap still fits.
    @Test func theCapCountsEveryByte() throws {
        let fits = try Self.pipe(holding: String(repeating: "7", count: 64) + "\n")
        defer { close(fits) }
        #expect(try QRTextInput.firstNonEmptyLine(of: fits, limit: 64) == String(repeating: "7", count: 64))
        let long = try Self.pipe(holding: String(repeating: "7", count: 65) + "\n")
        defer { close(long) }
        #expect(throws: QRTextInputError.tooLong(limit: 64)) { try QRTextInput.firstNonEmptyLine(of: long, limit: 64) }
        let blanks = try Self.pipe(holding: String(repeating: " \n", count: 40) + "FIDO:/1\n")
        defer { close(blanks) }
        #expect(throws: QRTextInputError.tooLong(limit: 64)) {
            try QRTextInput.firstNonEmptyLine(of: blanks, limit: 64)
        }
    }

    @Test func endlessStandardInputEndsWithTheTypedError() throws {
        let zero = open("/dev/zero", O_RDONLY)
        try #require(zero >= 0)
        defer { close(zero) }
        #expect(throws: QRTextInputError.tooLong(limit: QRTextInput.maximumInputBytes)) {
            try QRTextInput.firstNonEmptyLine(of: zero, limit: QRTextInput.maximumInputBytes)
        }
        #expect(throws: LineReadError.tooLong(limit: DeviceTerminal.maximumLineLength)) {
            try readBoundedLine(zero, limit: DeviceTerminal.maximumLineLength)
        }
    }

    /// The real program: `hybrid-authenticator -` fed by /dev/zero, then by a generator process
    /// (`yes ''`, endless blank lines), exits with status 1 and the typed error as its JSON event.
    @Test(arguments: ["/dev/zero", "yes"])
    func theProgramStopsReadingStandardInputAtTheCap(source: String) async throws {
        let binary = StoreConcurrencyTests.authenticatorBinary
        try #require(FileManager.default.isExecutableFile(atPath: binary), "build hybrid-authenticator first")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-", "--json", "--store", "/nonexistent/never-opened.json"]
        var generator: Process?
        if source == "yes" {
            let yes = Process()
            yes.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            yes.arguments = ["yes", ""]
            let pipe = Pipe()
            yes.standardOutput = pipe
            process.standardInput = pipe
            try yes.run()
            generator = yes
        } else {
            process.standardInput = FileHandle(forReadingAtPath: source)
        }
        defer { if generator?.isRunning == true { generator?.terminate() } }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: await ChildProcess.readToEnd(output.fileHandleForReading), as: UTF8.self)
        #expect(await ChildProcess.exitStatus(of: process) == 1)
        #expect(
            text.contains("\"event\":\"error\"") && text.contains("first \(QRTextInput.maximumInputBytes) bytes"),
            "\(text)")
    }

    // MARK: Files

    /// A store file over the cap, found by its size: a typed error. An endless device is refused
    /// before any read: it is not a regular file (and a link to it is not followed).
    @Test func anOversizedStoreFileIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let sparse = directory.file("big.json")
        try #require(FileManager.default.createFile(atPath: sparse, contents: nil))
        try #require(truncate(sparse, off_t(FilePasskeyStore.maximumFileSize + 1)) == 0)
        let endless = directory.file("endless.json")
        try FileManager.default.createSymbolicLink(atPath: endless, withDestinationPath: "/dev/zero")
        for (path, error) in [
            (sparse, PasskeyStoreError.tooLarge(limit: FilePasskeyStore.maximumFileSize)),
            (endless, .refusedFile(path: endless, .symbolicLink)),
            ("/dev/zero", .refusedFile(path: "/dev/zero", .notARegularFile)),
        ] {
            #expect(throws: error) { try FilePasskeyStore(path: path, protection: .insecurePlaintext) }
            #expect(throws: error) { try FilePasskeyStore.metadata(atPath: path) }
            #expect(throws: error) { try FilePasskeyStore.storedProtection(atPath: path) }
        }
    }

    /// A device is not read at all (it is not a regular file), so it cannot make the read endless.
    @Test func anEndlessQRImageFileIsRefused() {
        #expect(throws: QRImageError.notAnImage(path: "/dev/zero")) {
            try QRImageReader().read(contentsOfFile: "/dev/zero")
        }
    }
}
