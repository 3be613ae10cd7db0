import Foundation
import HybridCore

#if canImport(Glibc)
    import Glibc
#endif

/// A **simulation** of the BLE air between processes on one machine, for tests and the loopback demo.
/// Nothing here touches a radio, and nothing is authenticated beyond the directory's owner and
/// mode (checked before use): the command-line tools accept `--ble sim` only when
/// ``allowVariable`` is `1`.
///
/// Rendezvous is a directory. Every scanner binds a UDP socket on 127.0.0.1 and registers its port
/// there as an empty file named `scanner-<pid>-<port>`. Every advertiser, once per advertising
/// interval, lists the directory and sends its advert (`SimulatedAirDatagram`) to each registered
/// port. Registrations of processes that no longer exist are deleted by the advertisers.
public struct SimulatedAir: Sendable, Hashable {
    /// The environment variable that must be `1` for the command-line tools to accept `--ble sim`.
    public static let allowVariable = "HYBRID_ALLOW_SIMULATED_AIR"

    /// The rendezvous directory (created with mode 0700 on first use; must be this user's, 0700).
    public var directory: String

    /// - Parameter directory: where scanners register; by default ``defaultDirectory(environment:)``.
    public init(directory: String? = nil) {
        self.directory = directory ?? Self.defaultDirectory()
    }

    /// `$HYBRID_SIMULATED_AIR_DIR` if set, else `$XDG_RUNTIME_DIR/hybrid-simulated-air`, else
    /// `/tmp/hybrid-simulated-air-<uid>`. Processes of one user therefore meet on the same air.
    public static func defaultDirectory(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        if let explicit = environment["HYBRID_SIMULATED_AIR_DIR"], !explicit.isEmpty {
            return explicit
        }
        if let runtime = XDGBaseDirectory.runtimeDirectory(environment: environment) {
            return runtime + "/hybrid-simulated-air"
        }
        return "/tmp/hybrid-simulated-air-\(getuid())"
    }
}

/// The scanner registrations in a ``SimulatedAir`` directory. Blocking file I/O: use only on a
/// ``BlockingActivity`` thread.
struct SimulatedAirRegistry {
    let directory: String

    /// Creates the directory (0700) if it is missing, then checks without following links that it
    /// is a directory of this user that nobody else can enter: another user's directory (or one
    /// they could write to) would let them register ports and read or feed the adverts.
    /// - Throws: ``BluetoothError/unavailable(reason:)`` saying what is wrong.
    func checkDirectory() throws(BluetoothError) {
        let parent = (directory as NSString).deletingLastPathComponent
        if !parent.isEmpty {
            try? FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        }
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw .unavailable(reason: "cannot create the simulated air directory \(directory) (errno \(errno))")
        }
        var info = stat()
        guard lstat(directory, &info) == 0 else {
            throw .unavailable(reason: "cannot inspect the simulated air directory \(directory) (errno \(errno))")
        }
        let problem: String? =
            if info.st_mode & S_IFMT == S_IFLNK { "is a symbolic link" } else if info.st_mode & S_IFMT != S_IFDIR {
                "is not a directory"
            } else if info.st_uid != geteuid() {
                "belongs to uid \(info.st_uid), not to this user (uid \(geteuid()))"
            } else if info.st_mode & 0o077 != 0 {
                "has mode " + String(info.st_mode & 0o777, radix: 8) + ", not 0700"
            } else { nil }
        if let problem {
            throw .unavailable(reason: "refusing the simulated air directory \(directory): it \(problem)")
        }
    }

    /// Registers `port` for this process and returns the file's path.
    func register(port: UInt16) throws -> String {
        try checkDirectory()
        let path = directory + "/" + Self.fileName(pid: getpid(), port: port)
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw BluetoothError.unavailable(reason: "cannot register in the simulated air at \(directory)")
        }
        return path
    }

    func unregister(path: String) {
        unlink(path)
    }

    /// Ports of the registered scanners. Registrations of processes that have exited are deleted.
    func scannerPorts() -> [UInt16] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var ports: [UInt16] = []
        for name in names {
            guard let (pid, port) = Self.parse(fileName: name) else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH {
                unlink(directory + "/" + name)
                continue
            }
            ports.append(port)
        }
        return ports
    }

    static func fileName(pid: Int32, port: UInt16) -> String {
        "scanner-\(pid)-\(port)"
    }

    static func parse(fileName: String) -> (pid: Int32, port: UInt16)? {
        let parts = fileName.split(separator: "-")
        guard parts.count == 3, parts[0] == "scanner", let pid = Int32(parts[1]), pid > 0,
            let port = UInt16(parts[2]), port > 0
        else { return nil }
        return (pid, port)
    }
}
