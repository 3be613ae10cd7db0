import HybridClient
import HybridPresentation

/// What the QR window says, decided from the request alone (sans-IO, so tests read it).
package struct QRWindowText: Sendable, Equatable {
    /// What the program asks of the phone.
    package enum Operation: Sendable, Equatable {
        /// Create a passkey (makeCredential).
        case register
        /// Sign in (getAssertion).
        case signIn
    }

    /// The window title; names the RP ID.
    package let title: String
    /// What is asked: "Sign in to example.com", "Create a passkey for example.com", "Use your ssh key".
    package let heading: String
    /// The line above the QR code: what to do with it, worded as every program words it.
    package let hint = ClientEventPresentation.scanSentence
    /// The state shown under the QR code until the phone answers.
    package let initialState = "Waiting for your phone…"

    package init(operation: Operation, rpID: String?) {
        let site = rpID ?? "an unknown site"
        title = "Security key: \(site)"
        // OpenSSH's keys use the RP ID "ssh:" (ssh-keygen -O application, which must start with "ssh:").
        if let rpID, rpID.hasPrefix("ssh:") {
            heading = operation == .register ? "Create an ssh key (\(rpID))" : "Use your ssh key (\(rpID))"
        } else {
            heading = operation == .register ? "Create a passkey for \(site)" : "Sign in to \(site)"
        }
    }

    /// The state line for a ceremony event (its sentence, ``ClientEventPresentation``), and whether
    /// the QR code is spent from then on; nil for events that change nothing on screen.
    package static func state(for event: HybridClientEvent) -> (text: String, hideQR: Bool)? {
        let hideQR: Bool
        switch event {
        case .qr, .waitingForDevice, .channel, .l2capUnavailable: return nil
        case .advertForAnotherQRCode: hideQR = false
        case .connecting, .connectingL2CAP, .handshake, .waitingForApproval, .done: hideQR = true
        case .lingering: return state(for: .done)  // the window's part is over
        }
        return (ClientEventPresentation(event).sentence, hideQR)
    }
}
