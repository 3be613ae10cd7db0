import ArgumentParser
import Foundation

/// `--ca-file`: a PEM file of extra CA certificates to trust for `wss://` (a private relay), for
/// every program that opens tunnels. A file that cannot be read is refused when the command line
/// is parsed, before any connection.
package struct CAFileOption: ParsableArguments {
    @Option(
        name: .customLong("ca-file"),
        help: ArgumentHelp(
            "PEM file of extra CA certificates to trust for wss:// (a private relay).", valueName: "file"))
    package var path: String?

    package init() {}

    package func validate() throws {
        if let path, !FileManager.default.isReadableFile(atPath: path) {
            throw ValidationError("--ca-file \(path) is not a readable file")
        }
    }
}
