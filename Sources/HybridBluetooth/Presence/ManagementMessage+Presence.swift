#if canImport(Glibc)
    import Glibc
#endif

extension ManagementMessage.PresenceEvent {
    /// What the event tells ``AdapterPresence``: a controller added is down until it is powered
    /// (mgmt-api.txt: Index Added comes before any Powered setting), a removed one is gone, and New
    /// Settings says by its Powered bit whether it is up.
    var observation: AdapterPresence.Observation {
        switch self {
        case .indexAdded(let index): .hciDeviceEvent(.registered, id: Int32(index))
        case .indexRemoved(let index): .hciDeviceEvent(.unregistered, id: Int32(index))
        case .newSettings(let index, let settings):
            .hciDeviceEvent(settings.contains(.powered) ? .up : .down, id: Int32(index))
        }
    }
}

extension ManagementMessage.InformationReply {
    /// What a Read Controller Information answer for controller `index` tells ``AdapterPresence``:
    /// up or down by its Powered bit; no such controller (status 0x11, Invalid Index) is a missing
    /// adapter; `nil` for an unrelated event or another refusal.
    func observation(index: UInt16) -> AdapterPresence.Observation? {
        switch self {
        case .settings(let settings): .hciDeviceEvent(settings.contains(.powered) ? .up : .down, id: Int32(index))
        case .failed(let status): status == ManagementMessage.invalidIndex ? .systemCallFailed(errno: ENODEV) : nil
        case .unrelated: nil
        }
    }
}
