import Foundation
import HybridCore
import HybridSecurityKey
import Testing

@testable import hybrid_security_key

#if canImport(Glibc)
    import Glibc
#endif

/// The remembered credential IDs: bounds, the file's text form, and the file's place and modes.
@Suite struct KnownCredentialsTests {
    static let rp1 = [UInt8](repeating: 0x01, count: 32)

    @Test func boundedPerRPAndInRPs() {
        var known = KnownCredentials()
        for index in 0...KnownCredentials.maximumIDsPerRelyingParty {
            let changed = known.remember([UInt8(index)], rpIDHash: Self.rp1)
            #expect(changed)
        }
        #expect(!known.contains([0], rpIDHash: Self.rp1))  // the oldest went
        #expect(known.contains([UInt8(KnownCredentials.maximumIDsPerRelyingParty)], rpIDHash: Self.rp1))
        for index in 0..<KnownCredentials.maximumRelyingParties {
            known.remember([0xEE], rpIDHash: [UInt8](repeating: UInt8(index + 2), count: 32))
        }
        #expect(!known.contains([1], rpIDHash: Self.rp1))  // the least recent RP went
        let emptyID = known.remember([], rpIDHash: Self.rp1)
        let shortHash = known.remember([1], rpIDHash: [1, 2, 3])
        #expect(!emptyID && !shortHash)
    }

    /// The text form, written by hand: header, then `rpIdHash id id` per line, most recent first.
    @Test func textFormReadsAndDamagedLinesAreSkipped() {
        let rp2 = String(repeating: "02", count: 32)
        let text = """
            # a comment
            \(String(repeating: "01", count: 32)) aabb ccdd
            \(rp2) 0102 zz
            not hex at all
            \(String(repeating: "03", count: 31)) 0102

            """
        let known = KnownCredentials(serialized: Array(text.utf8))
        #expect(known.contains([0xAA, 0xBB], rpIDHash: Self.rp1))
        #expect(known.contains([0xCC, 0xDD], rpIDHash: Self.rp1))
        #expect(known.contains([0x01, 0x02], rpIDHash: [UInt8](repeating: 2, count: 32)))
        #expect(!known.contains([0x01, 0x02], rpIDHash: [UInt8](repeating: 3, count: 31)))
        let again = KnownCredentials(serialized: known.serialized)
        #expect(again == known)
        #expect(
            String(decoding: known.serialized, as: UTF8.self).contains(
                "\(String(repeating: "01", count: 32)) aabb ccdd\n"))
    }

    /// The resolution itself is XDGBaseDirectoryTests'; this is the file's place in it, which the
    /// executable chooses (the library takes the path it is given).
    @Test func defaultPathIsInTheStateDirectory() {
        #expect(
            HybridSecurityKeyCommand.defaultKnownCredentialsPath(environment: ["XDG_STATE_HOME": "/s"])
                == "/s/hybrid-security-key/known-credentials")
    }

    @Test func fileIsPrivateAndRoundTrips() throws {
        let base = NSTemporaryDirectory() + "known-credentials-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: base) }
        let file = KnownCredentialsFile(path: base + "/state/hybrid-security-key/known-credentials")
        #expect(try file.load() == KnownCredentials())  // no file yet
        var known = KnownCredentials()
        known.remember([1, 2, 3], rpIDHash: Self.rp1)
        try file.save(known)
        known.remember([4], rpIDHash: Self.rp1)
        try file.save(known)
        #expect(try file.load() == known)
        var info = stat()
        #expect(stat(file.path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(stat(base + "/state/hybrid-security-key", &info) == 0 && info.st_mode & 0o777 == 0o700)
    }
}
