import Foundation
import HybridLocalFiles
import Synchronization

/// The image file of a role's current QR code, and the duty to delete it.
///
/// The QR code is all a phone needs to answer in the user's place (KNpsk0: no other secret), so
/// its image is a ``PrivateFile``: 0600, created with `O_EXCL | O_NOFOLLOW`, inside
/// `$XDG_RUNTIME_DIR` when that is this user's 0700 directory, else in a fresh `mkdtemp`
/// directory under `$TMPDIR` (never a predictable `/tmp` name). ``removeImage()`` deletes it when
/// the ceremony ends; ``removeAll()`` also removes the directory made for it.
package final class QRImageFile: Sendable {
    private enum Location: Sendable {
        case path(String)
        case privateDirectory(fileName: String, environment: [String: String])
    }

    private struct State: Sendable {
        var directory: String?
        var madeDirectory = false
        var written: String?
    }

    private let location: Location
    private let state = Mutex(State())

    /// The image at `path` exactly (a `--qr-file` the user chose): SVG if it ends in `.svg`.
    package init(path: String) {
        location = .path(path)
    }

    /// An image called `fileName` in a private directory chosen at the first write.
    package init(privateFileNamed fileName: String, environment: [String: String] = ProcessInfo.processInfo.environment)
    {
        location = .privateDirectory(fileName: fileName, environment: environment)
    }

    /// Writes `matrix`, replacing this object's previous image, and returns the path.
    package func write(_ matrix: QRCodeMatrix, writer: QRImageWriter = QRImageWriter()) throws(PrivateFileError)
        -> String
    {
        try state.withLock { state throws(PrivateFileError) -> String in
            let path: String
            switch location {
            case .path(let fixed): path = fixed
            case .privateDirectory(let fileName, let environment):
                let directory: String
                if let known = state.directory {
                    directory = known
                } else {
                    let (chosen, made) = try Self.privateDirectory(environment: environment)
                    directory = chosen
                    state.directory = chosen
                    state.madeDirectory = made
                }
                path = directory + "/" + fileName
            }
            try writer.write(matrix, toFile: path)
            state.written = path
            return path
        }
    }

    /// Deletes the current image, if any (the ceremony ended).
    package func removeImage() {
        state.withLock { state in
            if let written = state.written { PrivateFile.remove(written) }
            state.written = nil
        }
    }

    /// Deletes the current image and the directory made for it (the program ends).
    package func removeAll() {
        removeImage()
        state.withLock { state in
            if state.madeDirectory, let directory = state.directory { rmdir(directory) }
            state.directory = nil
            state.madeDirectory = false
        }
    }

    /// `$XDG_RUNTIME_DIR` if it passes ``PrivateFile/checkPrivateDirectory(_:)`` (after `sudo` or
    /// `su` it may be another user's), else a new `mkdtemp` directory under `$TMPDIR` or `/tmp`.
    static func privateDirectory(environment: [String: String]) throws(PrivateFileError) -> (String, made: Bool) {
        if let runtime = XDGBaseDirectory.runtimeDirectory(environment: environment),
            (try? PrivateFile.checkPrivateDirectory(runtime)) != nil
        {
            return (runtime, false)
        }
        let temporary = environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        return (try PrivateFile.makeTemporaryDirectory(in: temporary, prefix: "hybrid-qr-"), true)
    }
}
