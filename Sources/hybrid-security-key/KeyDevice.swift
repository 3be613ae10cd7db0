import Foundation
import HybridKeyBroker
import HybridSecurityKey
import HybridUHID

/// Where the key's reports go: the key broker's device (the default), or a uhid device this
/// process opened itself (`--uhid`). Both as one stream of events for the command's loop.
enum KeyDevice: Sendable {
    case brokered(BrokeredKey)
    case direct(UHIDDevice)

    /// What happens to the key.
    enum Event: Sendable {
        /// The key exists at this hidraw node (nil if it could not be found).
        case ready(hidraw: String?)
        /// A program sent an output report.
        case output([UInt8])
        /// The last program closed the key.
        case closed
        /// No key now (`removed`: it was taken away, and requests in flight are void).
        case unavailable(String, removed: Bool)
        /// The broker is gone: this process cannot have a key any more.
        case lost(String)
    }

    /// The device's events, in order.
    func events() -> any AsyncSequence<Event, Never> {
        switch self {
        case .brokered(let key):
            return key.events.map { event -> Event in
                switch event {
                case .created(let hidraw): .ready(hidraw: hidraw)
                case .output(let report): .output(report)
                case .closed: .closed
                case .removed(let reason): .unavailable(reason.description, removed: true)
                case .refused(let reason): .unavailable(reason.description, removed: false)
                case .disconnected(let reason): .lost(reason)
                }
            }
        case .direct(let device):
            return device.events.compactMap { event -> Event? in
                switch event {
                case .start: .ready(hidraw: await Self.hidrawPath(of: device))
                case .output(let report): .output(report)
                case .close: .closed
                case .open, .stop: nil
                }
            }
        }
    }

    /// Sends one input report to the programs.
    func send(_ report: [UInt8]) throws {
        switch self {
        case .brokered(let key): try key.send(report)
        case .direct(let device): try device.send(report)
        }
    }

    /// Removes the key (idempotent).
    func remove() {
        switch self {
        case .brokered(let key): key.shutdown()
        case .direct(let device): device.destroy()
        }
    }

    /// The hidraw node appears just after UHID_START: awaited from /dev's inotify events, for at
    /// most ``DeviceNodeWatch/hidrawDeadline``.
    private static func hidrawPath(of device: UHIDDevice) async -> String? {
        await DeviceNodeWatch.hidrawPath(uniq: device.identity.uniq)
    }
}
