import HybridCore

/// Why no data channel could be chosen.
public enum DataChannelSelectionError: Error, Hashable, Sendable {
    /// `--channel l2cap`, but the adapter cannot make LE connections or receive extended adverts,
    /// so the QR code cannot offer channel 1; the reason says which, in words a person can act on.
    case adapterCannotOfferL2CAP(L2CAPUnavailableReason)
    /// `--channel l2cap`, but the matched advert carried no PSM.
    case noPSMInAdvert
    /// `--channel l2cap`, and the L2CAP connection failed or did not complete in time.
    case l2capUnavailable
}
