import CGTKQRWindow
import Foundation
import HybridThreads

/// The one thread that runs GTK: started at the first window, `gtk_init_check` there, then GTK's
/// main loop for the rest of the process. Everything GTK runs on it, through ``run(_:)``
/// (`g_main_context_invoke`), while the ceremony runs in Swift's async code.
enum GTKThread {
    /// Whether GTK could open the display. The first call starts the thread and waits for
    /// `gtk_init_check` (a fraction of a second, once per process).
    static let available: Bool = {
        let started = DispatchSemaphore(value: 0)
        let outcome = InitOutcome()
        let thread = Thread {
            nameCurrentThread("gtk")
            outcome.ok = hqw_gtk_init()
            started.signal()
            if outcome.ok { hqw_gtk_run() }
        }
        thread.start()
        started.wait()
        return outcome.ok
    }()

    /// Runs `body` on the GTK thread (later, in order of submission).
    static func run(_ body: @escaping @Sendable () -> Void) {
        let call = Unmanaged.passRetained(Call(body)).toOpaque()
        hqw_invoke(
            { context in
                Unmanaged<Call>.fromOpaque(context!).takeRetainedValue().body()
            }, call)
    }

    private final class Call: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Written by the GTK thread before the semaphore's signal, read after the wait.
    private final class InitOutcome: @unchecked Sendable {
        var ok = false
    }
}
