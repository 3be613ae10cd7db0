import HybridCommandLine

/// The key runs from login to logout, so its tasks run on executors that sleep while it is idle
/// (``runOnQuietExecutors(_:)``; the platform's wake once a second forever).
@main
enum SecurityKeyEntryPoint {
    static func main() {
        runOnQuietExecutors { await HybridSecurityKeyCommand.main() }
    }
}
