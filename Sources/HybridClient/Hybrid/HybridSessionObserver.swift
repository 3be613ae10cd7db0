import HybridCore

/// What a conformance client watches in a session of ``HybridClientRunner``: `hybrid-conformance
/// client` judges the phone's advert and opens the phone's messages itself. Every other run uses
/// ``UnobservedSession``, which watches nothing.
package protocol HybridSessionObserver: Sendable {
    /// The matched advert's service data, and the channels the QR code offered (key 6).
    func advertMatched(serviceData: [UInt8], offeredChannels: [DataTransferChannel]?)
    /// A message from the phone, with the phone's advert, before the session opens it (also
    /// while the tunnel lingers).
    func messageReceived(_ message: [UInt8], advert: AdvertPlaintext)
}

extension HybridSessionObserver {
    package func advertMatched(serviceData: [UInt8], offeredChannels: [DataTransferChannel]?) {}
    package func messageReceived(_ message: [UInt8], advert: AdvertPlaintext) {}
}

/// The observer of every run but a conformance client's: it watches nothing.
package struct UnobservedSession: HybridSessionObserver {
    package init() {}
}
