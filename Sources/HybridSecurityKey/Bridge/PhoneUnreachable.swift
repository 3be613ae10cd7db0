import HybridCTAP

/// A ceremony failed, or a request was refused, because no phone can be reached over Bluetooth
/// (``SecurityKeyStateMachine/phoneReachabilityChanged(unreachableBecause:at:)``).
package struct PhoneUnreachable: Error, Equatable, CustomStringConvertible {
    /// What a program gets: an error (not a refusal or a timeout), as for other Bluetooth failures.
    package static let status = CTAPStatusCode.other
    /// The adapter's error, for a person.
    package var reason: String

    package var description: String { "no phone can be reached: \(reason)" }
}
