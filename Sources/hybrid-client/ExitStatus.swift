import ArgumentParser
import HybridClient

/// The exit statuses of `hybrid-client`, stable for scripts and harnesses.
enum ExitStatus {
    /// Bluetooth, tunnel or protocol failure, or an invalid answer from the phone.
    static let failure: Int32 = 1
    /// The overall timeout passed.
    static let timedOut: Int32 = 2
    /// The phone answered with a CTAP2 error status (no credentials, denied, …), or refused a
    /// digital-credential request (its error string).
    static let ctapError: Int32 = 3
    /// The person cancelled in the QR window (`--window`: Cancel or Escape).
    static let cancelled: Int32 = 4
    /// Bad arguments or options file (ArgumentParser's own validation status).
    static let usage: Int32 = ExitCode.validationFailure.rawValue
    /// Interrupted by SIGINT (128 + 2, as shells report it).
    static let interrupted: Int32 = 130

    /// The status for an error thrown by ``HybridClientRunner``.
    static func forError(_ error: HybridClientError) -> Int32 {
        switch error {
        case .timedOut: timedOut
        case .noCredentials, .operationDenied, .credentialExcluded, .authenticatorTimedOut, .authenticatorFailed,
            .digitalCredentialRefused:
            ctapError
        case .ctapUnsupported, .digitalCredentialsUnsupported, .invalidResponse, .extensionUnsupported, .bluetooth,
            .scanEnded, .dataChannel,
            .l2capFraming, .tunnel,
            .session:
            failure
        }
    }

    /// A short machine name for the error kind, for `--json` error events.
    static func kind(_ error: HybridClientError) -> String {
        switch forError(error) {
        case timedOut: "timeout"
        case ctapError: "ctap"
        default: "failure"
        }
    }
}
