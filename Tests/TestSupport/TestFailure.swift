/// A test's own failure with a message: thrown where a step of the test cannot go on (no QR code
/// shown, a stream ended early), so that the test fails with that message.
package struct TestFailure: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
