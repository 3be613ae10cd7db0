import ArgumentParser
import Foundation
import HybridCommandLine
import HybridLocalFiles

/// `hybrid-client native-messaging`: the native messaging host of the Firefox extension
/// (extension/firefox, docs/firefox.md). Firefox starts it through the host manifest, with the
/// manifest's path and the extension's id as arguments, and talks to it on stdin and stdout.
struct NativeMessagingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "native-messaging",
        abstract: "The Firefox extension's native messaging host (started by Firefox, not by hand).",
        discussion: """
            Reads Firefox's native messages (a 32-bit length in native byte order, then UTF-8 JSON) on \
            stdin and answers on stdout; one ceremony per request id, each shown in its own QR window. \
            Every ceremony is cancelled when stdin ends (the extension's port closed). Settings: \
            $XDG_CONFIG_HOME/hybrid-client/native-messaging.conf (default ~/.config/…), one connection \
            flag a line (--ble, --adapter, --tunnel-server, --ca-file, --channel, --l2cap-timeout, \
            --linger, --timeout, --no-window, --verbose). See docs/firefox.md.
            """
    )

    @Argument(help: "What Firefox passes: the host manifest's path and the extension's id (not used).")
    var browserArguments: [String] = []

    @Option(help: "The settings file (default: $XDG_CONFIG_HOME/hybrid-client/native-messaging.conf).")
    var settings: String?

    func run() async throws {
        let host = NativeMessagingHost(settings: try loadSettings())
        let input = StandardInputChunks.stream()
        // SIGTERM (how the WebExtensions portal ends a host when Firefox closes its session) and
        // SIGINT end the host as the end of stdin does: every ceremony cancelled and unwound.
        do { try await cancellingOnInterrupt { await host.serve(input: input) } } catch is Interrupted {}
    }

    private func loadSettings() throws -> NativeMessagingHostSettings {
        let environment = ProcessInfo.processInfo.environment
        let path =
            settings
            ?? XDGBaseDirectory.config.path(environment: environment, homeDirectory: NSHomeDirectory)
            + "/hybrid-client/native-messaging.conf"
        if settings == nil, !FileManager.default.fileExists(atPath: path) { return .defaults }
        let bytes: [UInt8]
        do {
            // The settings name the relay and adapter: this user's file, writable by no one else.
            bytes = try readRegularFile(atPath: path, limit: 64 * 1024, trust: .ownedByThisUser)
        } catch {
            throw ValidationError("\(path): \(error)")
        }
        do {
            return try NativeMessagingHostSettings(text: String(decoding: bytes, as: UTF8.self))
        } catch {
            throw ValidationError("\(path): \(error)")
        }
    }
}

/// Standard input as chunks of bytes, read on a thread of its own (a blocking read); the stream
/// ends at end of file or on a read error.
enum StandardInputChunks {
    static func stream() -> AsyncStream<[UInt8]> {
        let (stream, continuation) = AsyncStream<[UInt8]>.makeStream()
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                continuation.yield(Array(buffer[0..<count]))
            }
            continuation.finish()
        }
        thread.start()
        return stream
    }
}
