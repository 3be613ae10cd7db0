import Foundation
import HybridThreads

/// One blocking computation (a D-Bus call) on an OS thread of its own, so that it never occupies
/// the Swift cooperative thread pool.
package enum BlockingCall {
    /// Runs `body` on a new thread named `name` and returns its result.
    package static func perform<Value: Sendable>(name: String, _ body: @escaping @Sendable () -> Value) async -> Value {
        let result = OneShot<Value>()
        let thread = Thread {
            nameCurrentThread(name)
            result.fulfil(body())
        }
        thread.start()
        return await result.value
    }
}
