#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Why ``PrivateFile`` refused a path or could not write there. Every case names the path and
/// reads as one line for a user (``description``).
package enum PrivateFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Something already exists at the path and belongs to another user: never reused.
    case ownedByAnotherUser(path: String, owner: UInt32)
    /// The path is a symbolic link: never followed.
    case symbolicLink(path: String)
    /// The path exists but is not what was asked for (a regular file, or a directory).
    case wrongType(path: String)
    /// The directory (or an existing file) can be read or entered by the group or others.
    case readableByOthers(path: String, mode: UInt32)
    /// The file (read as trusted input) can be written by the group or others.
    case writableByOthers(path: String, mode: UInt32)
    /// A system call failed.
    case system(operation: String, path: String, errno: Int32)

    /// One line for a user.
    package var description: String {
        switch self {
        case .ownedByAnotherUser(let path, let owner):
            "\(path) already exists and belongs to uid \(owner), not to this user (uid \(geteuid())): refusing to use it"
        case .symbolicLink(let path):
            "\(path) is a symbolic link: refusing to follow it"
        case .wrongType(let path):
            "\(path) already exists and is not of the expected type: refusing to use it"
        case .readableByOthers(let path, let mode):
            "\(path) has mode " + String(mode & 0o7777, radix: 8)
                + ": group or others could read it, refusing to use it"
        case .writableByOthers(let path, let mode):
            "\(path) has mode " + String(mode & 0o7777, radix: 8)
                + ": group or others could write it, refusing to trust it"
        case .system(let operation, let path, let code):
            "\(operation) \(path) failed (\(String(cString: strerror(code))))"
        }
    }
}
