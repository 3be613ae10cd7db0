import Foundation
import HybridThreads
import Testing

/// `nameCurrentThread` (HybridThreads), which every long-lived thread of the key, the broker and
/// the Bluetooth code calls first: the kernel's name for the thread (`/proc/thread-self/comm`,
/// what `ps -L` and the idle benchmark read) changes at once, cut to the kernel's 15 bytes.
@Suite struct ThreadNameTests {
    @Test(arguments: [
        ("quiet-worker-0", "quiet-worker-0"),
        ("a-name-of-twenty-byte", "a-name-of-twent"),
    ])
    func theKernelSeesTheNameAtOnce(name: String, expected: String) async {
        let seen = await withCheckedContinuation { (continuation: CheckedContinuation<[String], Never>) in
            Thread {
                let inherited = kernelThreadName()
                nameCurrentThread(name)
                continuation.resume(returning: [inherited, kernelThreadName()])
            }.start()
        }
        #expect(seen[0] != expected, "the new thread already had the name: the test shows nothing")
        #expect(seen[1] == expected)
    }
}

/// The calling thread's name as the kernel keeps it.
private func kernelThreadName() -> String {
    let text = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
    return text.hasSuffix("\n") ? String(text.dropLast()) : text
}
