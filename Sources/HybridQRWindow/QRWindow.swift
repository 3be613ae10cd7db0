import CGTKQRWindow
import Foundation
import HybridPresentation

/// A window that shows one ceremony's QR code, what is asked and the state, with a Cancel button
/// (and Escape). GTK 4, on ``GTKThread``; every method may be called from any thread and returns
/// at once. The QR code goes from the matrix to a GdkMemoryTexture in memory: never to a file.
package final class QRWindow: Sendable {
    private let handle = Handle()

    /// Whether a graphical session is named in `environment` (`WAYLAND_DISPLAY` or `DISPLAY`).
    package static func displayPresent(in environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty || !(environment["DISPLAY"] ?? "").isEmpty
    }

    /// Opens the window, or returns nil when no display is present or GTK cannot open it.
    /// `onCancel` is called once (on the GTK thread) when the person cancels.
    package static func open(
        text: QRWindowText, matrix: QRCodeMatrix, onCancel: @escaping @Sendable () -> Void
    ) -> QRWindow? {
        guard displayPresent(), GTKThread.available else { return nil }
        let window = QRWindow()
        let image = QRPixels(matrix: matrix)
        let cancel = CancelCallback(onCancel)
        let handle = window.handle
        GTKThread.run {
            let context = Unmanaged.passUnretained(cancel).toOpaque()
            handle.cancel = cancel
            handle.pointer = image.rgb.withUnsafeBufferPointer { pixels in
                hqw_window_new(
                    text.title, text.heading, text.hint, pixels.baseAddress, Int32(image.side), text.initialState,
                    { context in Unmanaged<CancelCallback>.fromOpaque(context!).takeUnretainedValue().body() },
                    context)
            }
        }
        return window
    }

    /// Shows `state`; `hideQR` when the code can no longer be used (the phone is connecting).
    package func show(state: String, hideQR: Bool = false) {
        let handle = self.handle
        GTKThread.run {
            guard let pointer = handle.pointer else { return }
            hqw_window_set_state(pointer, state, hideQR)
        }
    }

    /// Shows `state` without the QR code, then closes after `delay` (zero: now).
    package func close(state: String? = nil, after delay: Duration = .zero) {
        let handle = self.handle
        let milliseconds = UInt32(
            clamping: delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000)
        GTKThread.run {
            guard let pointer = handle.pointer else { return }
            if let state { hqw_window_set_state(pointer, state, true) }
            hqw_window_close(pointer, milliseconds)
            handle.pointer = nil
        }
    }

    /// Returns once the GTK thread has handled everything submitted before (e.g. a close).
    package func flush() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            GTKThread.run { continuation.resume() }
        }
    }

    /// The C window; touched on the GTK thread only.
    private final class Handle: @unchecked Sendable {
        var pointer: OpaquePointer?
        var cancel: CancelCallback?
    }

    private final class CancelCallback: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}
