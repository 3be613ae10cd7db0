import Foundation
import HybridCore
import HybridLocalFiles

#if canImport(Glibc)
    import Glibc
#endif

/// A **simulation** of the BLE air between processes on one machine, for tests and the loopback demo.
/// Nothing here touches a radio, and nothing is authenticated beyond the directory's owner and
/// mode (checked before use): the command-line tools accept `--ble sim` only when
/// ``allowVariable`` is `1`.
///
/// Rendezvous is a directory, this user's and mode 0700. Every scanner binds a Unix datagram
/// socket in it, named `scanner-<pid>-<id>.sock`; only this user (and root) can send to a socket
/// in a directory nobody else can enter, so other local users can neither read nor feed the
/// adverts. Every advertiser, once per advertising interval, lists the directory and sends its
/// advert (`SimulatedAirDatagram`) to each scanner's socket. Sockets of processes that no longer
/// exist are deleted by the advertisers.
public struct SimulatedAir: Sendable, Hashable {
    /// The environment variable that must be `1` for the command-line tools to accept `--ble sim`.
    public static let allowVariable = "HYBRID_ALLOW_SIMULATED_AIR"

    /// The rendezvous directory (created with mode 0700 on first use; must be this user's, 0700).
    public var directory: String

    /// - Parameter directory: where scanners register; ``defaultDirectory(environment:)`` is where
    ///   the command-line tools meet.
    public init(directory: String) {
        self.directory = directory
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

    /// A scanner's socket, bound in the (checked) directory under a fresh name of this process.
    func register() throws(BluetoothError) -> SimulatedAirSocket {
        try checkDirectory()
        return try SimulatedAirSocket(
            boundTo: directory + "/" + Self.fileName(pid: getpid(), id: UInt32.random(in: 1...UInt32.max)))
    }

    func unregister(_ socket: SimulatedAirSocket) {
        if let path = socket.path { unlink(path) }
    }

    /// Socket paths of the registered scanners. Those of processes that have exited are deleted.
    func scannerPaths() -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var paths: [String] = []
        for name in names {
            guard let pid = Self.parse(fileName: name) else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH {
                unlink(directory + "/" + name)
                continue
            }
            paths.append(directory + "/" + name)
        }
        return paths
    }

    static func fileName(pid: Int32, id: UInt32) -> String {
        "scanner-\(pid)-\(id).sock"
    }

    /// The scanner's process ID in a socket name of ``fileName(pid:id:)``'s form.
    static func parse(fileName: String) -> Int32? {
        guard fileName.hasSuffix(".sock") else { return nil }
        let parts = fileName.dropLast(5).split(separator: "-")
        guard parts.count == 3, parts[0] == "scanner", let pid = Int32(parts[1]), pid > 0, UInt32(parts[2]) != nil
        else { return nil }
        return pid
    }
}
