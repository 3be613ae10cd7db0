import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A FIFO planted where code under test opens a file, with a deadline that keeps a test of
/// "a FIFO is refused without blocking" from hanging when the code does block.
///
/// Code that opens a FIFO the plain way waits in `open(2)` for a peer (a writer for `O_RDONLY`,
/// a reader for `O_WRONLY`) that never comes. If the test has not called ``finish()`` within
/// `deadline`, the watchdog opens the FIFO itself (`O_RDWR`, both ends) and closes it again: the
/// blocked open returns, a blocked read sees end of file, and ``finish()`` reports `true`, which
/// the test turns into a failure. A deadline, not a synchronisation: a correct refusal never
/// waits for it.
public final class FIFOWatchdog: Sendable {
    private let fired = Atomic<Bool>(false)
    private let stop: Int32
    private let wait: Int32
    private let stopped = DispatchSemaphore(value: 0)

    /// Creates the FIFO (mode 0600) at `path` and starts the deadline.
    public init(fifoAt path: String, deadline: Duration = .seconds(5)) throws {
        guard mkfifo(path, 0o600) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        (wait, stop) = (ends[0], ends[1])
        let milliseconds = Int32(deadline.components.seconds * 1000)
        Thread { [self] in
            var poller = pollfd(fd: self.wait, events: Int16(POLLIN), revents: 0)
            while true {
                let ready = poll(&poller, 1, milliseconds)
                if ready < 0 && errno == EINTR { continue }
                if ready == 0 {
                    self.fired.store(true, ordering: .sequentiallyConsistent)
                    let both = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
                    if both >= 0 { close(both) }
                }
                break
            }
            self.stopped.signal()
        }.start()
    }

    /// Stops the deadline and tells whether it expired, i.e. whether the code under test blocked
    /// on the FIFO until the watchdog opened it.
    public func finish() -> Bool {
        var byte: UInt8 = 1
        _ = write(stop, &byte, 1)
        stopped.wait()
        close(stop)
        close(wait)  // only now: a write to a pipe without a reader would raise SIGPIPE
        return fired.load(ordering: .sequentiallyConsistent)
    }
}
