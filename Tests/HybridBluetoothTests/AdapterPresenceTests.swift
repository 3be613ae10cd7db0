import Testing

@testable import HybridBluetooth

#if canImport(Glibc)
    import Glibc
#endif

/// ``AdapterPresence``'s reaction to each thing the kernel (HCI device events, `HCIGETDEVINFO`,
/// a socket's errno) or bluetoothd (`Adapter1.Powered`, `InterfacesRemoved`/`Added`) reports.
/// The event numbers are the kernel's `HCI_DEV_*` (include/net/bluetooth/hci.h).
@Suite struct AdapterPresenceTests {
    @Test func hciDeviceEventsOfTheWatchedAdapter() {
        var presence = AdapterPresence(adapter: "hci1")
        #expect(presence.observe(.hciDeviceEvent(.down, id: 1)) == .vanished(.adapterDown("hci1")))
        #expect(presence.observe(.hciDeviceEvent(.up, id: 1)) == .returned)
        #expect(presence.observe(.hciDeviceEvent(.unregistered, id: 1)) == .vanished(.noAdapter("hci1")))
        // A controller registered again is still down until it is brought up.
        #expect(presence.observe(.hciDeviceEvent(.registered, id: 1)) == .vanished(.adapterDown("hci1")))
        #expect(presence.observe(.hciDeviceEvent(.up, id: 1)) == .returned)
        #expect(presence.isPresent)
    }

    @Test func kernelEventNumbersAreTheKernels() {
        // HCI_DEV_REG 1, HCI_DEV_UNREG 2, HCI_DEV_UP 3, HCI_DEV_DOWN 4.
        #expect(AdapterPresence.HCIDeviceEvent(rawValue: 1) == .registered)
        #expect(AdapterPresence.HCIDeviceEvent(rawValue: 2) == .unregistered)
        #expect(AdapterPresence.HCIDeviceEvent(rawValue: 3) == .up)
        #expect(AdapterPresence.HCIDeviceEvent(rawValue: 4) == .down)
    }

    @Test func otherAdaptersEventsAreIgnored() {
        var presence = AdapterPresence(adapter: "hci1")
        #expect(presence.observe(.hciDeviceEvent(.down, id: 0)) == nil)
        #expect(presence.observe(.hciDeviceEvent(.unregistered, id: 2)) == nil)
        #expect(presence.isPresent)
    }

    @Test func deviceInfoUpFlag() {
        var presence = AdapterPresence(adapter: "hci0")
        #expect(presence.observe(.deviceInfo(isUp: true)) == nil)
        #expect(presence.observe(.deviceInfo(isUp: false)) == .vanished(.adapterDown("hci0")))
        #expect(presence.observe(.deviceInfo(isUp: false)) == nil)
        #expect(presence.state == .absent(.adapterDown("hci0")))
        #expect(presence.observe(.deviceInfo(isUp: true)) == .returned)
    }

    @Test func socketAndIoctlErrnos() {
        var presence = AdapterPresence(adapter: "hci1")
        #expect(presence.observe(.systemCallFailed(errno: ENODEV)) == .vanished(.noAdapter("hci1")))
        #expect(presence.observe(.systemCallFailed(errno: ENETDOWN)) == .vanished(.adapterDown("hci1")))
        // EPIPE: the kernel detached the socket from a removed controller.
        #expect(presence.observe(.systemCallFailed(errno: EPIPE)) == .vanished(.noAdapter("hci1")))
        guard case .vanished(let blocked)? = presence.observe(.systemCallFailed(errno: ERFKILL)) else {
            Issue.record("ERFKILL did not make the adapter absent")
            return
        }
        #expect(blocked.description.contains("rfkill unblock"))
        // An errno that says nothing about the adapter changes nothing.
        #expect(presence.observe(.systemCallFailed(errno: EAGAIN)) == nil)
        #expect(presence.observe(.deviceInfo(isUp: true)) == .returned)
        #expect(presence.observe(.systemCallFailed(errno: EINTR)) == nil)
        #expect(presence.isPresent)
    }

    @Test func bluezPoweredProperty() {
        var presence = AdapterPresence(adapter: "hci1")
        #expect(presence.observe(.poweredChanged(path: "/org/bluez/hci0", powered: false)) == nil)
        #expect(
            presence.observe(.poweredChanged(path: "/org/bluez/hci1", powered: false))
                == .vanished(.adapterDown("hci1")))
        #expect(presence.observe(.poweredChanged(path: "/org/bluez/hci1", powered: true)) == .returned)
    }

    @Test func bluezAdapterObjectRemovedAndAdded() {
        var presence = AdapterPresence(adapter: "hci1")
        // A device object under the adapter, or another interface, is not the adapter.
        #expect(
            presence.observe(
                .interfacesRemoved(path: "/org/bluez/hci1/dev_00_11_22_33_44_55", interfaces: ["org.bluez.Device1"]))
                == nil)
        #expect(
            presence.observe(
                .interfacesRemoved(path: "/org/bluez/hci1", interfaces: ["org.bluez.LEAdvertisingManager1"]))
                == nil)
        #expect(
            presence.observe(.interfacesRemoved(path: "/org/bluez/hci1", interfaces: ["org.bluez.Adapter1"]))
                == .vanished(.noAdapter("hci1")))
        // Added but not powered: still unusable, now for another reason.
        #expect(
            presence.observe(
                .interfacesAdded(path: "/org/bluez/hci1", interfaces: ["org.bluez.Adapter1"], powered: false))
                == .vanished(.adapterDown("hci1")))
        #expect(
            presence.observe(
                .interfacesAdded(path: "/org/bluez/hci1", interfaces: ["org.bluez.Adapter1"], powered: true))
                == .returned)
    }

    @Test func everyAbsenceNamesTheAdapterAndAFix() {
        var presence = AdapterPresence(adapter: "hci7")
        for observation: AdapterPresence.Observation in [
            .deviceInfo(isUp: false), .systemCallFailed(errno: ENODEV), .systemCallFailed(errno: ERFKILL),
        ] {
            _ = presence.observe(.deviceInfo(isUp: true))
            guard case .vanished(let why)? = presence.observe(observation) else {
                Issue.record("\(observation) did not make hci7 absent")
                continue
            }
            #expect(why.description.contains("hci7"), "\(why)")
        }
    }
}
