import Foundation
import Testing

@testable import HybridSecurityKey
@testable import HybridUHID

/// deploy/security-key/70-hybrid-security-key.rules grants least privilege: nothing on /dev/uhid
/// (only the root key broker opens it), and on the key's hidraw node only the tags that let the
/// snap builds of Firefox and Chromium reach it, never a group, owner or mode. Checked with a
/// parser of udev(7)'s rule syntax (`KEY[{attr}]OP"value"`, comma separated, `#` comments); the
/// guest proof (ci/broker-in-vm.sh) runs `udevadm test` on a real node with these rules.
@Suite struct UdevRulesTests {
    static let rulesFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("deploy/security-key/70-hybrid-security-key.rules")

    static func rules() throws -> [[UdevToken]] {
        try UdevToken.parseRules(String(contentsOf: rulesFile, encoding: .utf8))
    }

    @Test func noRuleGrantsUHIDToAnyone() throws {
        for rule in try Self.rules() {
            #expect(!rule.contains { $0.key == "KERNEL" && $0.value.contains("uhid") }, "\(rule)")
            #expect(!rule.contains { $0.key == "TAG" && $0.value == "uaccess" }, "\(rule)")
        }
    }

    @Test func theKeysHidrawNodeIsTaggedForTheSnapBrowsers() throws {
        let identity = UHIDDevice.Identity()
        // hid-core names the device BUS:VENDOR:PRODUCT.INSTANCE in upper-case hex (hid_add_device).
        let kernels = String(format: "%04X:%04X:%04X.*", identity.bus, identity.vendor, identity.product)
        let hidraw = try Self.rules().filter { $0.contains(UdevToken(key: "SUBSYSTEM", op: "==", value: "hidraw")) }
        #expect(hidraw.count == 1)
        for rule in hidraw {
            #expect(rule.contains(UdevToken(key: "KERNELS", op: "==", value: kernels)))
            #expect(rule.contains(UdevToken(key: "TAG", op: "+=", value: "snap_firefox_firefox")))
            #expect(rule.contains(UdevToken(key: "TAG", op: "+=", value: "snap_chromium_chromium")))
        }
    }

    @Test func noRuleWidensOwnershipOrMode() throws {
        for token in try Self.rules().joined() {
            // No group (uhid, plugdev, …), no owner, no mode: the broker makes the node its user's.
            #expect(!["GROUP", "OWNER", "MODE"].contains(token.key), "\(token)")
            #expect(!(token.key == "RUN" || token.key == "PROGRAM"), "\(token)")
        }
    }

    /// systemd's 60-fido-id.rules + 70-uaccess.rules tag every FIDO hidraw node `uaccess` (an ACL
    /// for the seat's active user, applied by 73-seat-late.rules). Our second file takes the tag off
    /// our key's node again, so it must sort after 70-uaccess.rules and before 71-seat.rules (udev
    /// runs the files of every rules directory in one order, by name). The guest proof checks the
    /// result with `udevadm test` and the distribution's rules.
    @Test func theKeysNodeGetsNoSeatACL() throws {
        let file = Self.rulesFile.deletingLastPathComponent().appendingPathComponent(
            "71-hybrid-security-key-no-uaccess.rules")
        let rules = try UdevToken.parseRules(String(contentsOf: file, encoding: .utf8))
        let identity = UHIDDevice.Identity()
        let kernels = String(format: "%04X:%04X:%04X.*", identity.bus, identity.vendor, identity.product)
        #expect(
            rules == [
                [
                    UdevToken(key: "SUBSYSTEM", op: "==", value: "hidraw"),
                    UdevToken(key: "KERNELS", op: "==", value: kernels),
                    UdevToken(key: "TAG", op: "-=", value: "uaccess"),
                    // Final (:=) against a group rule of the kind vendors' guides install; no OWNER,
                    // so udev keeps the owner the broker gave the node.
                    UdevToken(key: "MODE", op: ":=", value: "0600"),
                    UdevToken(key: "GROUP", op: ":=", value: "root"),
                ]
            ])
        let name = file.lastPathComponent
        #expect("70-uaccess.rules" < name && name < "71-seat.rules" && name < "73-seat-late.rules")
        // And the first file, which snapd's rules must see first, still sorts before 70-snap.*.
        #expect(Self.rulesFile.lastPathComponent < "70-snap.")
    }

    @Test func everyLineParses() throws {
        let rules = try Self.rules()
        #expect(rules.count == 1)
        #expect(throws: UdevToken.ParseError.self) { try UdevToken.parseRules(#"KERNEL=="uhid", GROUP"#) }
        #expect(throws: UdevToken.ParseError.self) { try UdevToken.parseRules(#"KERNEL=="uhid" TAG+="uaccess""#) }
    }
}

/// One `KEY OP "value"` of a udev rule line.
struct UdevToken: Equatable, CustomStringConvertible {
    let key: String
    let op: String
    let value: String

    struct ParseError: Error { let line: String }

    var description: String { "\(key)\(op)\"\(value)\"" }

    /// The rule lines of `text`: comments and blank lines skipped, `\` continuations joined.
    static func parseRules(_ text: String) throws -> [[UdevToken]] {
        let joined = text.replacingOccurrences(of: "\\\n", with: "")
        return try joined.split(separator: "\n").compactMap { raw -> [UdevToken]? in
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { return nil }
            return try parseLine(line)
        }
    }

    private static let operators = ["==", "!=", "+=", "-=", ":=", "="]

    static func parseLine(_ line: String) throws -> [UdevToken] {
        var tokens: [UdevToken] = []
        var rest = Substring(line)
        while true {
            rest = rest.drop { $0 == " " || $0 == "\t" }
            guard let opStart = rest.firstIndex(where: { "=!+-:".contains($0) }) else { throw ParseError(line: line) }
            let key = String(rest[..<opStart]).trimmingCharacters(in: .whitespaces)
            guard !key.isEmpty, key.allSatisfy({ $0.isLetter || $0 == "_" || $0 == "{" || $0 == "}" || $0.isNumber }),
                let op = operators.first(where: { rest[opStart...].hasPrefix($0) })
            else { throw ParseError(line: line) }
            rest = rest[rest.index(opStart, offsetBy: op.count)...].drop { $0 == " " }
            guard rest.first == "\"", let close = rest.dropFirst().firstIndex(of: "\"") else {
                throw ParseError(line: line)
            }
            tokens.append(UdevToken(key: key, op: op, value: String(rest[rest.index(after: rest.startIndex)..<close])))
            rest = rest[rest.index(after: close)...].drop { $0 == " " || $0 == "\t" }
            if rest.isEmpty { return tokens }
            guard rest.first == "," else { throw ParseError(line: line) }
            rest = rest.dropFirst()
        }
    }
}
