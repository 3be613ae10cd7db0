#if canImport(Glibc)
    import Glibc
#endif

/// Names the calling OS thread `name`, what `top -H`, `ps -L`, `/proc/PID/task/*/comm` and the
/// idle benchmark's per-thread lines show. The kernel keeps the first 15 bytes.
///
/// Call it first thing inside the thread's body. Not `Thread.name`: Foundation on Linux drops a
/// name set before `start()`, and its setter run inside the thread can find the thread's handle
/// still unset (`start()` stores it after the thread may have begun), so the thread silently keeps
/// its creator's name. Not `pthread_setname_np`: Glibc's Swift module does not export it. The name
/// is only a diagnostic, so a failure (no `/proc`) leaves the inherited name and is not reported.
package func nameCurrentThread(_ name: String) {
    let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return }
    defer { close(descriptor) }
    // No newline: the kernel keeps every byte written, up to 15.
    let bytes = Array(name.utf8.prefix(15))
    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
}
