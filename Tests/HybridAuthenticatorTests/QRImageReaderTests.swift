import Foundation
import HybridAuthenticator
import HybridBluetooth
import HybridCore
import HybridPresentation
import TestChildProcess
import Testing

/// `QRImageReader` on images made by tools independent of this project (Fixtures/qr-images/make.sh:
/// the qrencode CLI, cjpeg, python3); the expected text is the URL of a shared QR vector.
@Suite(.timeLimit(.minutes(5)))
struct QRImageReaderTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/qr-images").path

    static func fixture(_ name: String) -> String { fixtures + "/" + name }

    /// The text make.sh encoded: qr.json "chromium-knownqrs-basic".
    static func hybridURL() throws -> String {
        let url = try #require(
            try AuthenticatorVectors.testCase("qr.json", "chromium-knownqrs-basic")["url"] as? String)
        #expect(url.hasPrefix("FIDO:/"))
        return url
    }

    static let otherText = "https://example.com/not-a-hybrid-code"

    @Test(arguments: ["fido-qrencode.png", "fido-dark.png", "fido-screenshot.jpg"])
    func readsTheHybridURL(image: String) throws {
        #expect(try QRImageReader().read(contentsOfFile: Self.fixture(image)) == Self.hybridURL())
    }

    @Test func thePayloadReadFromAScreenshotPassesTheRunnersCheck() throws {
        let text = try QRImageReader().read(contentsOfFile: Self.fixture("fido-screenshot.jpg"))
        var options = AuthenticatorRunner.Options(ble: .simulated(SimulatedAir(directory: "/nonexistent")))
        options.maxQRCodeAge = nil
        let checked = try AuthenticatorRunner.check(qrCode: text, options: options)
        let publicKey = try AuthenticatorVectors.hex("qr.json", case: "chromium-knownqrs-basic", key: "publicKey")
        #expect(checked.payload.identityKey.compressedRepresentation == Data(publicKey))
    }

    @Test func ofTwoCodesTheHybridOneWins() throws {
        // zbar lists the other code first (checked with zbarimg below), so this is a real choice.
        #expect(try QRImageReader().read(contentsOfFile: Self.fixture("two-codes.png")) == Self.hybridURL())
    }

    @Test func aNonHybridCodeIsReadAsItIsAndThenRefusedAsAQRCode() throws {
        let text = try QRImageReader().read(contentsOfFile: Self.fixture("not-fido.png"))
        #expect(text == Self.otherText)
        let options = AuthenticatorRunner.Options(ble: .simulated(SimulatedAir(directory: "/nonexistent")))
        #expect(throws: AuthenticatorRunnerError.invalidQRCode(.invalidPrefix)) {
            try AuthenticatorRunner.check(qrCode: text, options: options)
        }
    }

    @Test func anImageWithoutAQRCode() {
        let path = Self.fixture("no-qr.png")
        #expect(throws: QRImageError.noQRCode(path: path)) { try QRImageReader().read(contentsOfFile: path) }
    }

    @Test func filesThatAreNotImages() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let reader = QRImageReader()
        let cases: [(String, [UInt8])] = [
            ("text.png", Array("FIDO:/123 is text, not a picture\n".utf8)),
            ("empty.jpg", []),
            ("gif.png", Array("GIF89a".utf8) + [0, 1, 0, 1]),
        ]
        for (name, bytes) in cases {
            let path = directory.file(name)
            #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            #expect(throws: QRImageError.notAnImage(path: path)) { try reader.read(contentsOfFile: path) }
        }
    }

    @Test func damagedImagesAreTypedErrors() throws {
        let png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.fixture("fido-qrencode.png"))))
        let jpeg = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Self.fixture("fido-screenshot.jpg"))))
        let reader = QRImageReader()
        let damaged: [(String, [UInt8])] = [
            ("cut.png", Array(png.prefix(40))),
            ("bad-crc.png", png.enumerated().map { $0.offset == 20 ? $0.element ^ 0xFF : $0.element }),
            ("header-only.jpg", [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10]),
            ("garbage.jpg", [0xFF, 0xD8, 0xFF] + [UInt8](repeating: 0x42, count: 200)),
        ]
        for (name, bytes) in damaged {
            guard case .undecodable(let path, let reason) = Self.error(try reader.read(imageBytes: bytes, path: name))
            else {
                Issue.record(
                    "\(name): expected undecodable, got \(String(describing: Self.error(try reader.read(imageBytes: bytes, path: name))))"
                )
                continue
            }
            #expect(path == name && !reason.isEmpty)
        }
        // A JPEG cut in half is only a warning for TurboJPEG: what decoded is scanned, not refused.
        let halfJPEG = Array(jpeg.prefix(jpeg.count / 2))
        let half = Self.error(try reader.read(imageBytes: halfJPEG, path: "half.jpg"))
        #expect(half == nil || half == .noQRCode(path: "half.jpg"), "\(String(describing: half))")
    }

    @Test func missingAndUnreadablePaths() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let missing = directory.file("nope.png")
        #expect(throws: QRImageError.unreadable(path: missing, errno: ENOENT)) {
            try QRImageReader().read(contentsOfFile: missing)
        }
        #expect(throws: QRImageError.unreadable(path: directory.path, errno: EISDIR)) {
            try QRImageReader().read(contentsOfFile: directory.path)
        }
        #expect("\(QRImageError.unreadable(path: missing, errno: ENOENT))".contains("No such file"))
    }

    @Test func imagesLargerThanTheLimitAreRefusedBeforeDecoding() throws {
        // An IHDR claiming 100000 × 100000 pixels: refused from the header alone.
        var header: [UInt8] = [0, 0, 0, 13] + Array("IHDR".utf8)
        header += [0x00, 0x01, 0x86, 0xA0, 0x00, 0x01, 0x86, 0xA0, 8, 0, 0, 0, 0]
        let crc = Self.crc32(Array(header.dropFirst(4)))
        // libpng reads the header up to the first IDAT: give it an empty one, then the end.
        let emptyIDAT: [UInt8] = [0, 0, 0, 0] + Array("IDAT".utf8) + [0x35, 0xAF, 0x06, 0x1E]
        let end: [UInt8] = [0, 0, 0, 0] + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82]
        let png =
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + header + [
                UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF),
            ] + emptyIDAT + end
        #expect(throws: QRImageError.tooLarge(path: "huge.png")) {
            try QRImageReader().read(imageBytes: png, path: "huge.png")
        }
    }

    /// zbarimg (apt zbar-tools, installed by scripts/setup.sh) reads the same texts from the fixtures.
    @Test func zbarimgReadsTheFixturesTheSameWay() async throws {
        let url = try Self.hybridURL()
        let expected: [(String, [String])] = [
            ("fido-qrencode.png", [url]), ("fido-dark.png", [url]), ("fido-screenshot.jpg", [url]),
            ("not-fido.png", [Self.otherText]), ("two-codes.png", [Self.otherText, url]), ("no-qr.png", []),
        ]
        for (name, texts) in expected {
            #expect(try await Self.zbarimg(Self.fixture(name)) == texts, "\(name)")
        }
    }

    // MARK: helpers

    static func error(_ body: @autoclosure () throws(QRImageError) -> String) -> QRImageError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    /// The texts zbarimg prints for `path`, one per line; empty when it finds none (exit status 4).
    static func zbarimg(_ path: String) async throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["zbarimg", "--raw", "-q", "-Stest-inverted", path]
        let output = try await ChildProcess.run(process)
        #expect([0, 4].contains(output.status), "zbarimg exit \(output.status): apt zbar-tools")
        return String(decoding: output.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return ~crc
    }
}
