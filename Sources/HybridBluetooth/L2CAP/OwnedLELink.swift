import CBlueZ

/// The LE link under a channel this side connected: one phone session's link to one advert's
/// address, which nothing else uses, ended as soon as the channel closes.
///
/// Left alone, the kernel keeps an idle LE link for a few seconds after its last channel closes
/// (`HCI_DISCONN_TIMEOUT`, 2 s for the side that connected, twice that for the other). A phone that
/// runs Linux ignores a second connection from the same central while the first is still up
/// ("Ignoring HCI_Connection_Complete for existing connection", then "ACL packet for unknown
/// connection handle"): the next sign-in's channel never opened and the client fell back to the
/// tunnel after `--l2cap-timeout` (every sign-in right after a phone's death, and one in four of
/// back-to-back sign-ins, in the fault proof's guest). The phone's new advert comes from a new
/// random address, so the central cannot tell it is the same phone; it can hang up what it no
/// longer needs.
///
/// Ending the link takes a raw HCI socket (CAP_NET_RAW), which the client's L2CAP channel already
/// needs (the controller's abilities are read through one); without it, the kernel's own delay
/// ends the link.
struct OwnedLELink: Sendable {
    let adapterID: Int32
    let peer: BLEAddress
    let handle: UInt16

    /// Sends HCI Disconnect for ``handle`` if the adapter's LE link to ``peer`` still has that
    /// handle (a link already gone may have left its handle to another), without waiting for the
    /// controller's answer.
    func end() {
        let device = CBlueZ_openDevice(adapterID)
        guard device >= 0 else { return }
        defer { CBlueZ_closeDevice(device) }
        guard CBlueZ_leLinkHandle(device, peer.littleEndianBytes) == Int32(handle) else { return }
        let command = HCICommand.disconnect(handle: handle)
        _ = command.parameters.withUnsafeBufferPointer {
            CBlueZ_writeCommand(device, command.opcode, $0.baseAddress, UInt8($0.count))
        }
    }
}
