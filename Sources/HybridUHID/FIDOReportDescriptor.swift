/// The HID report descriptor of a FIDO authenticator (CTAP 2.2 §11.2.8.1): usage page 0xF1D0
/// (FIDO Alliance), usage 0x01 (CTAPHID), one 64-byte input report (usage 0x20, data in) and one
/// 64-byte output report (usage 0x21, data out), without report IDs. Hosts (libfido2, browsers,
/// systemd's fido_id) recognise a security key by this descriptor alone.
package enum FIDOReportDescriptor {
    /// The descriptor bytes, as passed to UHID_CREATE2.
    package static let bytes: [UInt8] = [
        0x06, 0xD0, 0xF1,  // Usage Page (FIDO Alliance)
        0x09, 0x01,  // Usage (CTAPHID)
        0xA1, 0x01,  // Collection (Application)
        0x09, 0x20,  //   Usage (Data In)
        0x15, 0x00,  //   Logical Minimum (0)
        0x26, 0xFF, 0x00,  //   Logical Maximum (255)
        0x75, 0x08,  //   Report Size (8)
        0x95, 0x40,  //   Report Count (64)
        0x81, 0x02,  //   Input (Data, Variable, Absolute)
        0x09, 0x21,  //   Usage (Data Out)
        0x15, 0x00,  //   Logical Minimum (0)
        0x26, 0xFF, 0x00,  //   Logical Maximum (255)
        0x75, 0x08,  //   Report Size (8)
        0x95, 0x40,  //   Report Count (64)
        0x91, 0x02,  //   Output (Data, Variable, Absolute)
        0xC0,  // End Collection
    ]
}
