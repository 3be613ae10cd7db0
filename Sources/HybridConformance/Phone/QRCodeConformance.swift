import Foundation
import HybridCore

/// Judges the QR code a client under test shows (protocol.md §1, §10.2, §10.6): the `phone.qr.*`
/// checks of ``PhoneChecks``. Sans-IO: the text and the current time come in, results go out.
package enum QRCodeConformance {
    /// Most seconds between the QR timestamp (key 3) and now that still count as current.
    package static let timestampTolerance: Int64 = 600

    /// Records the `phone.qr.*` checks for `text` into `report`.
    ///
    /// - Parameters:
    ///   - text: the scanned text, surrounding whitespace ignored.
    ///   - now: seconds since the Unix epoch, for the timestamp check.
    /// - Returns: the parsed payload if a phone can use it (format, CBOR, required keys and key types
    ///   passed), else `nil`.
    @discardableResult
    package static func judge(_ text: String, now: Int64, into report: inout ConformanceReport) -> QRCodePayload? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let bytes: [UInt8]
        guard QRCodePayload.hasURLPrefix(trimmed) else {
            report.fail(PhoneChecks.qrFormat, observed: "the text does not start with FIDO:/")
            return skipRest(after: PhoneChecks.qrFormat, into: &report)
        }
        do {
            bytes = try DigitEncoding.decode(trimmed.dropFirst(QRCodePayload.urlPrefix.count))
        } catch {
            report.fail(PhoneChecks.qrFormat, observed: "the digits do not decode: \(error)")
            return skipRest(after: PhoneChecks.qrFormat, into: &report)
        }
        let prefix = String(trimmed.prefix(QRCodePayload.urlPrefix.count))
        report.pass(
            PhoneChecks.qrFormat, observed: "\(prefix) and \(trimmed.count - prefix.count) digits, \(bytes.count) bytes"
        )

        let value: CBORValue
        do {
            value = try CBORDecoder.decode(bytes)
        } catch {
            report.fail(PhoneChecks.qrCanonicalCBOR, observed: "not one canonical CBOR item: \(error)")
            return skipRest(after: PhoneChecks.qrCanonicalCBOR, into: &report)
        }
        guard let entries = value.mapEntries else {
            report.fail(PhoneChecks.qrCanonicalCBOR, observed: "canonical CBOR, but not a map")
            return skipRest(after: PhoneChecks.qrCanonicalCBOR, into: &report)
        }
        let badKeys = entries.map(\.key).filter { ($0.intValue ?? -1) < 0 }
        report.expect(
            PhoneChecks.qrCanonicalCBOR, badKeys.isEmpty,
            observed: badKeys.isEmpty ? "map \(describe(entries))" : "keys that are not unsigned integers: \(badKeys)")

        var payload: QRCodePayload?
        do {
            payload = try QRCodePayload(cborValue: value)
            report.pass(PhoneChecks.qrRequiredKeys, observed: "key 0: 33-byte point on the curve; key 1: 16 bytes")
        } catch .wrongType(let key) where key >= 2 {
            report.pass(PhoneChecks.qrRequiredKeys, observed: "key 0: 33-byte point on the curve; key 1: 16 bytes")
        } catch {
            report.fail(PhoneChecks.qrRequiredKeys, observed: "\(error)")
        }

        let typeProblems = keyTypeProblems(value)
        report.expect(
            PhoneChecks.qrKeyTypes, typeProblems.isEmpty,
            observed: typeProblems.isEmpty ? "keys 2–5 well typed where present" : typeProblems.joined(separator: "; "))

        let linking = value[intKey: 4]
        report.expect(
            PhoneChecks.qrKey4Present, linking != nil,
            observed: linking.map { "key 4 = \(describe($0))" } ?? "no key 4: such phones fall back to revision 0")
        if let flag = linking?.boolValue {
            report.expect(PhoneChecks.qrKey4NoLinking, !flag, observed: "key 4 = \(flag)")
        } else {
            report.skip(PhoneChecks.qrKey4NoLinking, because: "no bool at key 4")
        }

        let domains = value[intKey: 2]?.intValue
        report.expect(
            PhoneChecks.qrKey2Domains, (domains ?? 0) >= 2,
            observed: domains.map { "key 2 = \($0)" } ?? "no key 2: phones assume one assigned domain, old crypter")

        judgeKey6(value[intKey: 6], into: &report)

        let hint = value[intKey: 5]?.textValue
        report.expect(
            PhoneChecks.qrRequestType, hint.map { ["ga", "mc", "dcp", "dci"].contains($0) } ?? false,
            observed: hint.map { "key 5 = \"\($0)\"" } ?? "no text at key 5: phones assume \"ga\"")

        if let timestamp = value[intKey: 3]?.intValue {
            let (offset, overflow) = now.subtractingReportingOverflow(timestamp)
            report.expect(
                PhoneChecks.qrTimestamp, !overflow && offset.magnitude <= UInt64(timestampTolerance),
                observed: overflow ? "key 3 = \(timestamp)" : "key 3 is \(offset) s from now")
        } else {
            // Optional in protocol.md §1.3, but a phone that checks the code's age refuses it.
            report.expect(
                PhoneChecks.qrTimestamp, false,
                observed: "no integer at key 3: phones that check the code's age refuse it as possibly old")
        }
        return typeProblems.isEmpty ? payload : nil
    }

    /// Key 6 as CTAP 2.3 defines it: an array of channel IDs, sent only to offer L2CAP (1).
    private static func judgeKey6(_ field: CBORValue?, into report: inout ConformanceReport) {
        guard let field else {
            report.pass(PhoneChecks.qrKey6Type, observed: "no key 6 (cloud tunnel only)")
            report.pass(PhoneChecks.qrKey6OnlyWithL2CAP, observed: "no key 6")
            return
        }
        guard let elements = field.arrayValue, elements.allSatisfy({ ($0.intValue ?? -1) >= 0 }) else {
            report.fail(PhoneChecks.qrKey6Type, observed: "key 6 = \(describe(field))")
            report.skip(PhoneChecks.qrKey6OnlyWithL2CAP, because: "key 6 is not a channel array")
            return
        }
        report.pass(PhoneChecks.qrKey6Type, observed: "key 6 = \(describe(field))")
        report.expect(
            PhoneChecks.qrKey6OnlyWithL2CAP, elements.contains(.int(1)),
            observed: "key 6 = \(describe(field)), no L2CAP offered")
    }

    private static func keyTypeProblems(_ map: CBORValue) -> [String] {
        var problems: [String] = []
        for key: Int64 in [2, 3] {
            if let field = map[intKey: key], (field.intValue ?? -1) < 0 {
                problems.append("key \(key) = \(describe(field)), not an unsigned integer")
            }
        }
        if let field = map[intKey: 4], field.boolValue == nil {
            problems.append("key 4 = \(describe(field)), not a bool")
        }
        if let field = map[intKey: 5], field.textValue == nil {
            problems.append("key 5 = \(describe(field)), not text")
        }
        return problems
    }

    private static func skipRest(after failed: ConformanceCheck, into report: inout ConformanceReport) -> QRCodePayload?
    {
        let qrChecks = PhoneChecks.judged.filter { $0.id.hasPrefix("phone.qr.") }
        guard let index = qrChecks.firstIndex(of: failed) else { return nil }
        for check in qrChecks[(index + 1)...] { report.skip(check, because: "\(failed.id) failed") }
        return nil
    }

    /// A short description of the map's keys and small values, for the report.
    static func describe(_ entries: [CBORMapEntry]) -> String {
        "{" + entries.map { "\(describe($0.key)): \(describe($0.value))" }.joined(separator: ", ") + "}"
    }

    static func describe(_ value: CBORValue) -> String {
        switch value {
        case .int(let number): return "\(number)"
        case .bytes(let bytes): return "bstr(\(bytes.count))"
        case .text(let text): return text.count <= 16 ? "\"\(text)\"" : "tstr(\(text.count))"
        case .bool(let flag): return "\(flag)"
        case .array(let elements): return "[" + elements.map(describe).joined(separator: ", ") + "]"
        case .map(let entries): return entries.count <= 6 ? describe(entries) : "map(\(entries.count))"
        case .null: return "null"
        case .undefined: return "undefined"
        }
    }
}
