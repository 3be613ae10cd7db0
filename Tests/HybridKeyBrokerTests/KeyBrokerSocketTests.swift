import Foundation
import TestChildProcess
import Testing

/// `hybrid-key-broker --socket PATH`, the broker without socket activation. Root makes the socket
/// mode 0666 for every local user: that mode must come from `bind` itself (the umask), never from
/// a later change by path, which a path in a directory others can change could by then aim at
/// another file; and such a directory is refused outright.
@Suite struct KeyBrokerSocketTests {
    /// `.build/<config>/hybrid-key-broker`, built beside the test bundle.
    static var broker: URL {
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("hybrid-key-broker")
        }
        return Bundle.main.bundleURL.appendingPathComponent("hybrid-key-broker")
    }

    /// Runs the broker on `socket` with no system bus to reach, so that it stops right after the
    /// socket (it cannot ask logind): its exit status and standard error.
    static func run(socket: String) async throws -> (status: Int32, stderr: String) {
        try #require(FileManager.default.isExecutableFile(atPath: broker.path), "build hybrid-key-broker first")
        let process = Process()
        process.executableURL = broker
        process.arguments = ["--socket", socket]
        process.environment = ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/hybrid-key-broker-test-bus"]
        let output = try await ChildProcess.run(process)
        return (output.status, String(decoding: output.stderr, as: UTF8.self))
    }

    static func directory(mode: Int) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("key-broker-socket-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: directory.path)
        return directory
    }

    @Test(arguments: [0o777, 0o1777, 0o775])
    func aDirectoryOthersCanWriteIsRefused(mode: Int) async throws {
        let directory = try Self.directory(mode: mode)
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = directory.appendingPathComponent("socket").path
        let (status, stderr) = try await Self.run(socket: socket)
        #expect(status != 0)
        #expect(stderr.contains("another user can write to this directory"), "\(stderr)")
        #expect(!FileManager.default.fileExists(atPath: socket))
    }

    @Test func theSocketIsBoundMode0666() async throws {
        let directory = try Self.directory(mode: 0o755)
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = directory.appendingPathComponent("socket").path
        let (status, stderr) = try await Self.run(socket: socket)
        // No system bus: the broker refuses to serve (fail closed), after binding its socket.
        #expect(status != 0)
        #expect(stderr.contains("cannot reach systemd-logind"), "\(stderr)")
        var info = stat()
        #expect(lstat(socket, &info) == 0)
        #expect(info.st_mode & S_IFMT == S_IFSOCK)
        #expect(info.st_mode & 0o7777 == 0o666)
    }
}
