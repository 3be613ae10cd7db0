import HybridCore
import HybridQRWindow
import HybridSecurityKey
import Synchronization

/// The QR window for each request the bridge forwards to the phone: opened at the QR code with
/// what the program asks for which RP ID, following the ceremony, closed when it ends (after
/// showing the outcome briefly, or at once after its own Cancel). Its Cancel ends the request
/// with CTAP2_ERR_KEEPALIVE_CANCEL.
final class WindowPresenter: Sendable {
    private let current = Mutex<CeremonyWindow?>(nil)
    /// Where a window's closing (after its delay) runs: ``ChildTasks/run()`` in the command's group.
    private let tasks: ChildTasks
    private let cancel = Mutex<(@Sendable () -> Void)?>(nil)

    init(tasks: ChildTasks) {
        self.tasks = tasks
    }

    /// What the window's Cancel does (set once the bridge exists).
    func onCancel(_ body: @escaping @Sendable () -> Void) { cancel.withLock { $0 = body } }

    func report(_ event: SecurityKeyEvent) {
        switch event {
        case .forwarding(let command, let rpID):
            let operation: QRWindowText.Operation = command == .makeCredential ? .register : .signIn
            let window = CeremonyWindow(text: QRWindowText(operation: operation, rpID: rpID)) { [weak self] in
                self?.cancel.withLock { $0 }?()
            }
            close(replacingWith: window)
        case .ceremony(let progress):
            current.withLock { $0 }?.report(progress)
        case .done(_, let status):
            close(
                state: status.isSuccess ? "Done" : "Your phone declined (\(status))",
                after: .seconds(status.isSuccess ? 1 : 3))
        case .failed(_, .keepaliveCancel, _):
            // The person pressed Cancel: the window goes at once, as hybrid-client's does.
            close()
        case .failed(_, _, let message):
            close(state: "Failed: \(message)", after: .seconds(4))
        case .cancelled:
            close(state: "Cancelled by the program", after: .seconds(1))
        case .phoneReachability(let unreachableBecause):
            // A QR code no phone can answer goes; a refused request's window says why instead.
            if let reason = unreachableBecause { close(state: "Failed: \(reason)", after: .seconds(4)) }
        case .answeredLocally, .rewritten, .wink, .tunnelClosed:
            break
        }
    }

    private func close(replacingWith next: CeremonyWindow? = nil, state: String? = nil, after delay: Duration = .zero) {
        let previous = current.withLock { window in
            defer { window = next }
            return window
        }
        guard let previous else { return }
        tasks.start { await previous.close(state: state, after: delay) }
    }
}
