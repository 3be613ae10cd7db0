import Foundation
import Testing

@testable import HybridLocalFiles
@testable import HybridPresentation

/// The QR image is a private file (whoever reads it can answer the ceremony). Modes under umask
/// 022, files and directories planted by another user (uid 65534, `nobody`; needs root for chown,
/// as CI runs) or as symbolic links, and deletion.
@Suite struct PrivateFileTests {
    static let nobody: uid_t = 65534

    /// A fresh directory for one test (0700), removed by `cleanUp`.
    struct Scratch {
        let path: String
        init() throws {
            path = try PrivateFile.makeTemporaryDirectory(in: NSTemporaryDirectory(), prefix: "private-file-test-")
        }
        func file(_ name: String) -> String { path + "/" + name }
        func cleanUp() { try? FileManager.default.removeItem(atPath: path) }
    }

    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
    }

    static let matrix = try! QRCodeMatrix(encoding: "FIDO:/0123456789")

    @Test func qrImagesAre0600UnderUmask022() throws {
        let scratch = try Scratch()
        defer { scratch.cleanUp() }
        let previous = umask(0o022)
        defer { umask(previous) }
        for name in ["qr.png", "qr.svg"] {
            try QRImageWriter().write(Self.matrix, toFile: scratch.file(name))
            #expect(Self.mode(scratch.file(name)) == 0o600, "\(name)")
        }
        // A default image lands in a 0700 directory: $XDG_RUNTIME_DIR when private, else mkdtemp.
        let image = QRImageFile(privateFileNamed: "qr.png", environment: ["TMPDIR": scratch.path])
        let path = try image.write(Self.matrix)
        let directory = (path as NSString).deletingLastPathComponent
        #expect(directory != scratch.path && directory.hasPrefix(scratch.path + "/hybrid-qr-"))
        #expect(Self.mode(directory) == 0o700 && Self.mode(path) == 0o600)
        image.removeAll()
    }

    @Test func aSymbolicLinkAtThePathIsRefusedAndNotFollowed() throws {
        let scratch = try Scratch()
        defer { scratch.cleanUp() }
        let target = scratch.file("victim")
        try Data("keep".utf8).write(to: URL(fileURLWithPath: target))
        #expect(symlink(target, scratch.file("qr.png")) == 0)
        #expect(throws: PrivateFileError.symbolicLink(path: scratch.file("qr.png"))) {
            try QRImageWriter().write(Self.matrix, toFile: scratch.file("qr.png"))
        }
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "keep")
        // A dangling link too (O_EXCL | O_NOFOLLOW would otherwise create its target).
        #expect(symlink(scratch.file("nowhere"), scratch.file("dangling.png")) == 0)
        #expect(throws: PrivateFileError.symbolicLink(path: scratch.file("dangling.png"))) {
            try QRImageWriter().write(Self.matrix, toFile: scratch.file("dangling.png"))
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.file("nowhere")))
    }

    @Test(.enabled(if: geteuid() == 0, "chown to another uid needs root (CI runs as root)"))
    func aFileOrDirectoryOfAnotherUserIsRefused() throws {
        let scratch = try Scratch()
        defer { scratch.cleanUp() }
        let planted = scratch.file("qr.png")
        try Data("planted".utf8).write(to: URL(fileURLWithPath: planted))
        #expect(chmod(planted, 0o666) == 0 && chown(planted, Self.nobody, Self.nobody) == 0)
        #expect(throws: PrivateFileError.ownedByAnotherUser(path: planted, owner: Self.nobody)) {
            try QRImageWriter().write(Self.matrix, toFile: planted)
        }
        #expect(try String(contentsOfFile: planted, encoding: .utf8) == "planted")
        #expect(throws: PrivateFileError.ownedByAnotherUser(path: planted, owner: Self.nobody)) {
            try PrivateFile.append([1], to: planted)
        }
        PrivateFile.remove(planted)
        #expect(FileManager.default.fileExists(atPath: planted))

        let plantedDirectory = scratch.file("dir.png")
        #expect(mkdir(plantedDirectory, 0o777) == 0 && chown(plantedDirectory, Self.nobody, Self.nobody) == 0)
        #expect(throws: PrivateFileError.ownedByAnotherUser(path: plantedDirectory, owner: Self.nobody)) {
            try QRImageWriter().write(Self.matrix, toFile: plantedDirectory)
        }

        // $XDG_RUNTIME_DIR of another user (after sudo) is not used: a fresh mkdtemp directory is.
        let otherRuntime = scratch.file("run-user-65534")
        #expect(mkdir(otherRuntime, 0o700) == 0 && chown(otherRuntime, Self.nobody, Self.nobody) == 0)
        #expect(throws: PrivateFileError.ownedByAnotherUser(path: otherRuntime, owner: Self.nobody)) {
            try PrivateFile.checkPrivateDirectory(otherRuntime)
        }
        let image = QRImageFile(
            privateFileNamed: "qr.png", environment: ["XDG_RUNTIME_DIR": otherRuntime, "TMPDIR": scratch.path])
        let path = try image.write(Self.matrix)
        #expect(!path.hasPrefix(otherRuntime) && path.hasPrefix(scratch.path + "/hybrid-qr-"))
        image.removeAll()
    }

    @Test func aRuntimeDirectoryOthersCanEnterIsNotUsed() throws {
        let scratch = try Scratch()
        defer { scratch.cleanUp() }
        let open = scratch.file("run")
        #expect(mkdir(open, 0o755) == 0 && chmod(open, 0o755) == 0)
        #expect(throws: PrivateFileError.readableByOthers(path: open, mode: UInt32(S_IFDIR | 0o755))) {
            try PrivateFile.checkPrivateDirectory(open)
        }
        let linked = scratch.file("run-link")
        #expect(symlink(open, linked) == 0)
        #expect(throws: PrivateFileError.symbolicLink(path: linked)) { try PrivateFile.checkPrivateDirectory(linked) }
        let image = QRImageFile(
            privateFileNamed: "qr.png", environment: ["XDG_RUNTIME_DIR": open, "TMPDIR": scratch.path])
        let path = try image.write(Self.matrix)
        #expect(!path.hasPrefix(open + "/"))
        image.removeAll()

        let mine = scratch.file("mine")
        #expect(mkdir(mine, 0o700) == 0)
        let inRuntime = QRImageFile(privateFileNamed: "qr.png", environment: ["XDG_RUNTIME_DIR": mine])
        #expect(try inRuntime.write(Self.matrix) == mine + "/qr.png")
        inRuntime.removeAll()
        #expect(!FileManager.default.fileExists(atPath: mine + "/qr.png"))
        #expect(FileManager.default.fileExists(atPath: mine))  // not ours to remove
    }

    /// The next ceremony replaces this user's previous image; ending deletes it, and the
    /// directory made for it.
    @Test func imagesAreReplacedAndDeleted() throws {
        let scratch = try Scratch()
        defer { scratch.cleanUp() }
        let fixed = QRImageFile(path: scratch.file("qr.png"))
        _ = try fixed.write(Self.matrix)
        _ = try fixed.write(try QRCodeMatrix(encoding: "FIDO:/9876543210"))
        #expect(Self.mode(scratch.file("qr.png")) == 0o600)
        fixed.removeImage()
        #expect(!FileManager.default.fileExists(atPath: scratch.file("qr.png")))

        let image = QRImageFile(privateFileNamed: "qr.png", environment: ["TMPDIR": scratch.path])
        let path = try image.write(Self.matrix)
        image.removeImage()
        #expect(!FileManager.default.fileExists(atPath: path))
        let again = try image.write(Self.matrix)
        #expect(again == path)  // same private directory for the next ceremony
        image.removeAll()
        #expect(!FileManager.default.fileExists(atPath: (path as NSString).deletingLastPathComponent))
    }

    /// `--events-file`: created 0600 and appended to; an existing file others can read is refused.
    @Test func appendedFilesArePrivate() throws {
        let scratch = try Scratch()
        defer { scratch.cleanUp() }
        let previous = umask(0o022)
        defer { umask(previous) }
        let events = scratch.file("events.jsonl")
        try PrivateFile.append(Array("a\n".utf8), to: events)
        try PrivateFile.append(Array("b\n".utf8), to: events)
        #expect(Self.mode(events) == 0o600)
        #expect(try String(contentsOfFile: events, encoding: .utf8) == "a\nb\n")
        #expect(chmod(events, 0o644) == 0)
        #expect(throws: PrivateFileError.readableByOthers(path: events, mode: UInt32(S_IFREG | 0o644))) {
            try PrivateFile.append([1], to: events)
        }
    }
}
