/// Where a phone gets the LE L2CAP channels clients open to it: ``L2CAPChannel/Listener`` on a
/// kernel PSM; tests hand out socket pairs.
package protocol L2CAPChannelSource: Sendable {
    /// The PSM clients connect to, which the advert suffix carries (protocol.md §3.4).
    var psm: UInt16 { get }
    /// The next channel a client opens.
    /// - Throws: ``BluetoothError``, or `CancellationError` when the task is cancelled first.
    func nextChannel() async throws -> L2CAPChannel
}

extension L2CAPChannel.Listener: L2CAPChannelSource {}
