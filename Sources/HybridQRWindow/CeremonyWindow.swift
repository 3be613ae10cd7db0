import HybridClient
import HybridPresentation
import Synchronization

/// One ceremony's window, driven by its ``HybridClientEvent``s: opens at the QR code, follows the
/// state, closes at the end. Does nothing without a display. Shared by `hybrid-client --window`
/// and `hybrid-security-key`.
package final class CeremonyWindow: Sendable {
    private let text: QRWindowText
    private let onCancel: @Sendable () -> Void
    private let window = Mutex<QRWindow?>(nil)

    /// `onCancel` runs once, on the GTK thread, when the person cancels in the window.
    package init(text: QRWindowText, onCancel: @escaping @Sendable () -> Void) {
        self.text = text
        self.onCancel = onCancel
    }

    package func report(_ event: HybridClientEvent) {
        if case .qr(let url) = event {
            guard let matrix = try? QRCodeMatrix(encoding: url) else { return }
            let opened = QRWindow.open(text: text, matrix: matrix, onCancel: onCancel)
            window.withLock { previous in
                previous?.close()
                previous = opened
            }
        } else if let change = QRWindowText.state(for: event) {
            window.withLock { $0 }?.show(state: change.text, hideQR: change.hideQR)
        }
    }

    /// Closes the window, showing `state` for `delay` first (e.g. a failure's reason); waits until
    /// GTK has handled it.
    package func close(state: String? = nil, after delay: Duration = .zero) async {
        guard
            let window = window.withLock({ current in
                defer { current = nil }
                return current
            })
        else { return }
        window.close(state: state, after: delay)
        await window.flush()
    }
}
