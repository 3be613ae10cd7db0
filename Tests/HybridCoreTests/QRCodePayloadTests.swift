import Crypto
import HybridCore
import TestSeededRandom
import TestVectorFiles
import Testing

@Suite struct QRCodePayloadTests {
    @Test func sharedVectors() { VectorFiles.expectAllPass("qr.json") }
    @Test func requestTypeVectors() { VectorFiles.expectAllPass("requestType.json") }

    /// A valid compressed key (Chromium KnownQRs, SCHEMA.md §4.2 example).
    static let knownKey = try! Hex.decode("03364c15eec34331d2865757421d497e569e1eba6cff9a69d32e90f19e7f6fd15e")
    /// The same X with its last byte changed: not on the curve (Chromium KnownQRs bad point).
    static let offCurveKey = try! Hex.decode("03364c15eec34331d2865757421d497e569e1eba6cff9a69d32e90f19e7f6fd15d")
    static let zeroSecret = [UInt8](repeating: 0, count: 16)

    static func parse(_ map: CBORValue) throws(QRCodeError) -> QRCodePayload {
        try QRCodePayload(url: "FIDO:/" + DigitEncoding.encode(CBOREncoder.encode(map)))
    }

    /// protocol.md §1.1: the prefix matches in any ASCII case, and nothing else does.
    @Test func urlPrefixMatchesInAnyASCIICase() {
        for text in ["FIDO:/", "fido:/0", "FiDo:/12345"] { #expect(QRCodePayload.hasURLPrefix(text), "\(text)") }
        for text in ["", "FIDO:", "FIDO/", "FİDO:/", " FIDO:/", "https://example.com", "FIDO:\\"] {
            #expect(!QRCodePayload.hasURLPrefix(text), "\(text)")
        }
    }

    @Test func textErrorsAreTyped() {
        #expect(throws: QRCodeError.invalidPrefix) { try QRCodePayload(url: "BIDO:/000") }
        #expect(throws: QRCodeError.invalidPrefix) { try QRCodePayload(url: "FIDO:") }
        #expect(throws: QRCodeError.invalidPrefix) { try QRCodePayload(url: "") }
        #expect(throws: QRCodeError.invalidPrefix) { try QRCodePayload(url: "FİDO:/000") }
        #expect(throws: QRCodeError.invalidPrefix) { try QRCodePayload(url: " FIDO:/000") }
        #expect(throws: QRCodeError.digits(.nonDigit)) { try QRCodePayload(url: "FIDO:/+00") }
        #expect(throws: QRCodeError.digits(.nonDigit)) { try QRCodePayload(url: "FIDO://") }
        #expect(throws: QRCodeError.digits(.invalidLength(1))) { try QRCodePayload(url: "FIDO:/0") }
        #expect(throws: QRCodeError.digits(.chunkOutOfRange)) { try QRCodePayload(url: "FIDO:/999") }
        #expect(throws: QRCodeError.cbor(.truncated)) { try QRCodePayload(url: "FIDO:/") }
        #expect(throws: QRCodeError.cbor(.truncated)) { try QRCodePayload(url: "fido:/") }
        #expect(throws: QRCodeError.notAMap) { try QRCodePayload(url: "FIDO:/000") }
    }

    @Test func mapErrorsAreTypedInSchemaOrder() {
        let key = CBORValue.bytes(Self.knownKey)
        let secret = CBORValue.bytes(Self.zeroSecret)
        #expect(throws: QRCodeError.notAMap) { try Self.parse([key, secret]) }
        #expect(throws: QRCodeError.missingKey(0)) { try Self.parse([1: secret]) }
        #expect(throws: QRCodeError.wrongType(key: 0)) { try Self.parse([0: "key", 1: secret]) }
        // Key 0 is checked before key 1.
        #expect(throws: QRCodeError.wrongType(key: 0)) { try Self.parse([0: 42]) }
        #expect(throws: QRCodeError.missingKey(1)) { try Self.parse([0: key]) }
        #expect(throws: QRCodeError.wrongType(key: 1)) { try Self.parse([0: key, 1: "secret"]) }
        #expect(throws: QRCodeError.invalidSecretLength(15)) {
            try Self.parse([0: key, 1: .bytes(Array(Self.zeroSecret.dropLast()))])
        }
        // The secret's length is checked before the key's.
        #expect(throws: QRCodeError.invalidSecretLength(17)) {
            try Self.parse([0: .bytes([2]), 1: .bytes(Self.zeroSecret + [0])])
        }
        #expect(throws: QRCodeError.invalidPublicKeyLength(32)) {
            try Self.parse([0: .bytes(Array(Self.knownKey.dropLast())), 1: secret])
        }
        let uncompressed = try! P256.KeyAgreement.PublicKey(compressedRepresentation: Self.knownKey).x963Representation
        #expect(throws: QRCodeError.invalidPublicKeyLength(65)) {
            try Self.parse([0: .bytes(Array(uncompressed)), 1: secret])
        }
        #expect(throws: QRCodeError.invalidPublicKey) { try Self.parse([0: .bytes(Self.offCurveKey), 1: secret]) }
        #expect(throws: QRCodeError.invalidPublicKey) {
            try Self.parse([0: .bytes([0x04] + Self.knownKey.dropFirst()), 1: secret])
        }
        #expect(throws: QRCodeError.invalidPublicKey) {
            try Self.parse([0: .bytes([0x00] + Self.knownKey.dropFirst()), 1: secret])
        }
        #expect(throws: QRCodeError.wrongType(key: 2)) { try Self.parse([0: key, 1: secret, 2: "2"]) }
        #expect(throws: QRCodeError.wrongType(key: 4)) { try Self.parse([0: key, 1: secret, 4: 1]) }
        #expect(throws: QRCodeError.wrongType(key: 5)) {
            try Self.parse([0: key, 1: secret, 5: .bytes([0x67, 0x61])])
        }
        // Key 2 is type-checked before key 4, and key 4 before key 5.
        #expect(throws: QRCodeError.wrongType(key: 2)) { try Self.parse([0: key, 1: secret, 2: true, 4: 1, 5: 1]) }
        #expect(throws: QRCodeError.wrongType(key: 4)) { try Self.parse([0: key, 1: secret, 4: 1, 5: 1]) }
    }

    @Test func lenientFields() throws {
        let key = CBORValue.bytes(Self.knownKey)
        let secret = CBORValue.bytes(Self.zeroSecret)
        let negative = try Self.parse([0: key, 1: secret, 2: -1, 3: "yesterday"])
        #expect(negative.knownDomains == -1)
        #expect(negative.timestamp == nil)
        let grease = try Self.parse([0: key, 1: secret, 6: [0], 0xffff: 0, "x": true])
        #expect(grease.channels == [.cloudTunnel])
        #expect(grease.otherKeys == [6, 0xffff, "x"])
        #expect(try Self.parse([0: key, 1: secret, 6: true]).channels == nil)
        #expect(try Self.parse([0: key, 1: secret, 6: [0, -1]]).channels == nil)
        #expect(try Self.parse([0: key, 1: secret, 6: [1, "0"]]).channels == nil)
        #expect(try Self.parse([0: key, 1: secret, 6: []]).channels == [])
        let unknownHint = try Self.parse([0: key, 1: secret, 5: "zz"])
        #expect(unknownHint.requestTypeHint == "zz")
        #expect(unknownHint.requestType == .getAssertion)
        #expect(try Self.parse([0: key, 1: secret, 5: "dci"]).requestType == .digitalCredentialIssuance)
    }

    /// Building the Chromium 156 QR code from its recorded fields gives the recorded URL
    /// (qr.json `chromium-156-live-qr`).
    @Test func generatesChromiumURL() throws {
        let key = try P256.KeyAgreement.PublicKey(
            compressedRepresentation: Hex.decode("02fea744626badc9895ff73cef2f3dfc45930f577ac3e3852829a518d74d1300ec")
        )
        let secret = try #require(QRSecret(bytes: Hex.decode("08736dec748a645e5e92184e7e72faf8")))
        let payload = QRCodePayload(
            identityKey: key, secret: secret, timestamp: 1_795_349_130, requestType: .makeCredential)
        #expect(
            payload.url
                == "FIDO:/472856062134847102689162207844000419699113120447735376866006131710910543361078428701630807252000697344411991061064880440083670449981391239083250707727106109321447142404"
        )
    }

    @Test func generationWritesKeysZeroToFiveAndSixOnlyWhenAsked() throws {
        var random = SeededRandom.forProperty()
        let key = random.p256Key().publicKey
        let plain = QRCodePayload(
            identityKey: key, secret: random.secret(), timestamp: 1, requestType: .getAssertion)
        let plainMap = try CBORDecoder.decode(plain.cbor)
        #expect(plainMap.mapEntries?.map(\.key) == [0, 1, 2, 3, 4, 5])
        #expect(plainMap[intKey: 2] == 2)
        #expect(plainMap[intKey: 4] == false)
        #expect(plain.url.hasPrefix("FIDO:/"))
        let offering = QRCodePayload(
            identityKey: key, secret: random.secret(), timestamp: 1, requestType: .makeCredential,
            supportsLinking: true, channels: [.cloudTunnel, .bleL2CAP]
        )
        let offeringMap = try CBORDecoder.decode(offering.cbor)
        #expect(offeringMap.mapEntries?.map(\.key) == [0, 1, 2, 3, 4, 5, 6])
        #expect(offeringMap[intKey: 4] == true)
        #expect(offeringMap[intKey: 6] == [0, 1])
        #expect(offering.otherKeys == [6] && plain.otherKeys.isEmpty)
    }

    @Test func randomPayloadsRoundTrip() throws {
        var random = SeededRandom.forProperty()
        for _ in 0..<200 {
            let payload = QRCodePayload(
                identityKey: random.p256Key().publicKey, secret: random.secret(),
                timestamp: Int64.random(in: 0...Int64(UInt32.max) * 4, using: &random),
                requestType: HybridRequestType.allCases.randomElement(using: &random) ?? .getAssertion,
                supportsLinking: Bool.random(using: &random),
                channels: Bool.random(using: &random)
                    ? nil
                    : (0..<Int.random(in: 0...3, using: &random)).map { _ in
                        DataTransferChannel(rawValue: UInt64.random(in: 0...70_000, using: &random))
                    }
            )
            let url = payload.url
            #expect(url.dropFirst(6).allSatisfy(\.isASCII) && url.dropFirst(6).allSatisfy(\.isNumber))
            let parsed = try QRCodePayload(url: url)
            #expect(parsed == payload)
            #expect(parsed.uncompressedPublicKey == Array(payload.identityKey.x963Representation))
            #expect(try QRCodePayload(url: "fIdO:/" + url.dropFirst(6)) == payload)
        }
    }

    /// Random digit strings, random bytes and random CBOR maps never crash the parser; every
    /// failure is a QRCodeError.
    @Test func malformedInputNeverCrashes() {
        var rng = SeededRandom.forProperty()
        var tally = ParseTally()
        let check = { (payload: QRCodePayload) in
            #expect((try? QRCodePayload(url: payload.url))?.cborValue == payload.cborValue)
        }
        for _ in 0..<3_000 {
            let digits = String(
                (0..<Int.random(in: 0...120, using: &rng)).map { _ in "0123456789".randomElement(using: &rng) ?? "0" })
            tally.record(
                QRCodeError.self, { () throws(QRCodeError) in try QRCodePayload(url: "FIDO:/" + digits) }, check: check)
            let bytes = rng.bytes(in: 0...80)
            tally.record(QRCodeError.self, { () throws(QRCodeError) in try QRCodePayload(cbor: bytes) }, check: check)
            let text = rng.text(in: 0...20)
            tally.record(QRCodeError.self, { () throws(QRCodeError) in try QRCodePayload(url: text) }, check: check)
        }
        #expect(tally.errors > 0)
        let key = CBORValue.bytes(Self.knownKey)
        let secret = CBORValue.bytes(Self.zeroSecret)
        for _ in 0..<2_000 {
            var entries = [CBORMapEntry(0, key), CBORMapEntry(1, secret)]
            for field: Int64 in 0...6 where Bool.random(using: &rng) {
                entries.removeAll { $0.key == .int(field) }
                entries.append(CBORMapEntry(.int(field), CBORTests.randomValue(depth: 3, using: &rng)))
            }
            do {
                _ = try QRCodePayload(cborValue: .map(entries))
            } catch .cbor, .digits, .invalidPrefix {
                Issue.record("a decoded map cannot fail before the map checks")
            } catch {
                // Any other QRCodeError is a legitimate rejection.
            }
        }
    }

    /// Fuzz regression (scripts/fuzz.sh, target qr): key 6 as the bool of pre-CTAP-2.3 Play Services.
    /// It is no channel list, is recorded in otherKeys, and is not written back; the fuzz oracle had
    /// compared the re-parsed payload with ==, which includes otherKeys.
    @Test func keySixAsABoolIsRecordedButNotWrittenBack() throws {
        let input = try Hex.decode(
            "a300582103364c15eec34331d2865757421d497e569e1eba6cff9a69d32e90f19e7f6fd15e0150"
                + "00000000000000000000000000000000" + "06f5")
        let payload = try QRCodePayload(cbor: input)
        #expect(
            payload.compressedPublicKey
                == (try Hex.decode("03364c15eec34331d2865757421d497e569e1eba6cff9a69d32e90f19e7f6fd15e")))
        #expect(payload.secret.bytes == [UInt8](repeating: 0, count: 16))
        #expect(payload.channels == nil && payload.supportsLinking == nil && payload.knownDomains == nil)
        #expect(payload.otherKeys == [6])
        #expect(payload.cborValue == .map([0: .bytes(payload.compressedPublicKey), 1: .bytes(payload.secret.bytes)]))
        let again = try QRCodePayload(cbor: payload.cbor)
        #expect(again.cborValue == payload.cborValue && again.otherKeys.isEmpty)
    }
}
