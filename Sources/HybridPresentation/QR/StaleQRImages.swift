import Foundation
import HybridCore
import HybridLocalFiles

/// The QR images a killed instance left behind (SIGKILL, a crash: no chance to delete them), found
/// and removed when the next one starts.
///
/// An image is `<prefix><PID>.png` (``QRImageFile``'s name for a role); it is stale when no process
/// `PID` runs. They live in `$XDG_RUNTIME_DIR` or in a `hybrid-qr-XXXXXX` directory made under
/// `$TMPDIR`; such a directory goes too once its stale image is gone and nothing else is in it.
/// Only this user's files and private directories are touched (``PrivateFile``).
package enum StaleQRImages {
    /// The names among `names` that are `<prefix><PID>.png` of a process that no longer runs.
    /// I/O-free: `isRunning` says whether a PID runs.
    package static func stale(_ names: [String], prefix: String, isRunning: (Int32) -> Bool) -> [String] {
        names.filter { name in
            guard name.hasPrefix(prefix), name.hasSuffix(".png") else { return false }
            let digits = name.dropFirst(prefix.count).dropLast(4)
            guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let pid = Int32(digits), pid > 0 else { return false }
            return !isRunning(pid)
        }
    }

    /// Removes the stale images named `<prefix><PID>.png`; returns their paths.
    @discardableResult
    package static func remove(
        prefix: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> [String] {
        var removed: [String] = []
        if let runtime = XDGBaseDirectory.runtimeDirectory(environment: environment),
            (try? PrivateFile.checkPrivateDirectory(runtime)) != nil
        {
            removed += removeStale(in: runtime, prefix: prefix)
        }
        let temporary = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        let made = (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []
        for name in made where name.hasPrefix("hybrid-qr-") {
            let directory = temporary + "/" + name
            guard (try? PrivateFile.checkPrivateDirectory(directory)) != nil else { continue }
            let gone = removeStale(in: directory, prefix: prefix)
            removed += gone
            if !gone.isEmpty { rmdir(directory) }  // fails, harmlessly, if anything else is in it
        }
        return removed
    }

    private static func removeStale(in directory: String, prefix: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return stale(names, prefix: prefix, isRunning: isRunning).map { name in
            let path = directory + "/" + name
            PrivateFile.remove(path)
            return path
        }
    }

    /// Whether process `pid` exists (`kill(pid, 0)`: EPERM means it runs as another user).
    private static func isRunning(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }
}
