import Foundation
import HybridUHID

#if canImport(Glibc)
    import Glibc
#endif

/// Gives the agent's user its key's hidraw node: owner `uid`, mode 0600, so that user's programs
/// (and no other user's) can open it. /dev is the kernel's devtmpfs, where no user can plant a
/// link; the node is still checked to be the character device sysfs names before it is changed.
///
/// The mode is set first, while root still owns the node, and the owner second: the broker runs
/// with `CAP_CHOWN` alone (its unit's `CapabilityBoundingSet`), and changing the mode of a node
/// root no longer owns would need `CAP_FOWNER`. In between the node is root's, mode 0600: nobody
/// else can open it. (Opening the node to use `fchmod`/`fchown` is not possible: the unit's device
/// policy admits /dev/uhid alone, and an open would reach the device as a program's open.)
enum HidrawOwnership {
    /// Finds the hidraw node of the device whose `HID_UNIQ` is `uniq` and hands it to `uid`.
    /// - Returns: its path, or `nil` while the kernel has not made it yet.
    /// - Throws: ``BrokerError`` when the node is not what sysfs says or cannot be changed.
    static func grant(uniq: String, to uid: UInt32) throws(BrokerError) -> String? {
        guard let node = hidrawNode(uniq: uniq) else { return nil }
        guard let numbers = readSmallFile("/sys/class/hidraw/\(node.sysfsName)/dev"),
            let expected = deviceNumber(numbers)
        else { return nil }
        var status = stat()
        guard lstat(node.path, &status) == 0 else { return nil }  // udev or devtmpfs not there yet
        guard (status.st_mode & S_IFMT) == S_IFCHR, status.st_rdev == expected else {
            throw .system("\(node.path) is not the key's character device", EINVAL)
        }
        guard chmod(node.path, 0o600) == 0 else { throw .system("chmod \(node.path)", errno) }
        guard chown(node.path, uid_t(uid), 0) == 0 else { throw .system("chown \(node.path)", errno) }
        return node.path
    }

    /// `MAJOR:MINOR` (a sysfs `dev` attribute) as a `dev_t`.
    private static func deviceNumber(_ text: String) -> dev_t? {
        let parts = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ":")
        guard parts.count == 2, let major = UInt32(parts[0]), let minor = UInt32(parts[1]) else { return nil }
        // glibc's makedev (sys/sysmacros.h), which Swift's Glibc module does not export.
        let high = (dev_t(major & 0xFFFF_F000) << 32) | (dev_t(minor & 0xFFFF_FF00) << 12)
        return high | (dev_t(major & 0x0FFF) << 8) | dev_t(minor & 0xFF)
    }
}
