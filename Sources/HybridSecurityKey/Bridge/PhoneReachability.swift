import HybridCTAP

/// Whether the key can reach a phone now: what the executable's Bluetooth adapter watch last
/// reported. The bridge consults it before it starts a phone ceremony (I/O-free: a value, changed
/// through ``SecurityKeyBridge/phoneReachabilityChanged(unreachableBecause:)``).
///
/// While the adapter is gone, a request that needs the phone is refused at once with
/// CTAP1_ERR_OTHER and the adapter's error as the message, instead of showing a QR code no phone
/// can answer; a ceremony waiting for the phone when the adapter goes fails the same way.
package struct PhoneReachability: Sendable, Equatable {
    /// Why no phone can be reached (the adapter's error, for a person), or `nil` when one can.
    package private(set) var unreachableBecause: String?

    /// A phone can be reached (the adapter is there and up).
    package static let reachable = PhoneReachability(unreachableBecause: nil)

    /// No phone can be reached, for `reason` (e.g. "Bluetooth adapter hci1 is down: …").
    package static func unreachable(_ reason: String) -> PhoneReachability {
        PhoneReachability(unreachableBecause: reason)
    }

    /// What to do with a request that needs the phone.
    package enum Admission: Sendable, Equatable {
        /// Start the phone ceremony.
        case start
        /// Answer `status` now, and tell the person `message`.
        case refuse(status: CTAPStatusCode, message: String)
    }

    /// The admission of a request that needs the phone, now.
    package var admission: Admission {
        guard let unreachableBecause else { return .start }
        return .refuse(
            status: PhoneUnreachable.status, message: PhoneUnreachable(reason: unreachableBecause).description)
    }

    /// Whether going from `self` to `next` must fail the ceremonies waiting for the phone.
    package func failsWaitingCeremonies(goingTo next: PhoneReachability) -> PhoneUnreachable? {
        guard unreachableBecause == nil, let reason = next.unreachableBecause else { return nil }
        return PhoneUnreachable(reason: reason)
    }
}

/// A ceremony failed, or a request was refused, because no phone can be reached over Bluetooth.
package struct PhoneUnreachable: Error, Equatable, CustomStringConvertible {
    /// What a program gets: an error (not a refusal or a timeout), as for other Bluetooth failures.
    package static let status = CTAPStatusCode.other
    /// The adapter's error, for a person.
    package var reason: String

    package var description: String { "no phone can be reached: \(reason)" }
}
