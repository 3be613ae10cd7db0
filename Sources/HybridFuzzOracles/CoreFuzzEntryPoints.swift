import Crypto
import HybridCore

// HybridCore's parsers as the fuzz targets (Fuzz/Package.swift, another package) reach them: these
// entry points are public behind @_spi(Fuzzing), the parsers they call stay `package`.

/// Every fuzz target: a name (FUZZ_TARGET, and the seed-corpus folder) and what it does with one input.
///
/// A target traps (and libFuzzer reports a crash) if the parser traps, or if its oracle fails: where
/// the format is canonical, what the parser accepts must encode back to the same bytes; elsewhere,
/// parsing what was encoded from a parsed value must give that value again. Rejections are typed
/// (`throws(…)`), so "no crash" already means "a value or a typed error".
@_spi(Fuzzing) public enum CoreFuzzEntryPoints {
    /// The targets by name (the `FUZZ_TARGET` of scripts/fuzz.sh and the seed-corpus folder).
    public static let all: [String: @Sendable ([UInt8]) -> Void] = [
        "cbor": cbor,
        "digits": digits,
        "qr": qr,
        "advert": advert,
        "advertSuffix": advertSuffix,
        "handshakeResponder": handshakeResponder,
        "handshakeInitiator": handshakeInitiator,
        "crypter": crypter,
        "padding": padding,
        "postHandshake": postHandshake,
        "update": update,
        "linking": linking,
        "frame": frame,
        "clientPayload": clientPayload,
        "tunnelPath": tunnelPath,
    ]

    /// Strict CBOR: whatever decodes is canonical, so it encodes back byte for byte.
    static func cbor(_ input: [UInt8]) {
        guard let value = try? CBORDecoder.decode(input) else { return }
        check(CBOREncoder.encode(value) == input, "CBOR round trip")
        if let (prefix, length) = try? CBORDecoder.decodePrefix(input) {
            check(length <= input.count && CBOREncoder.encode(prefix) == Array(input[..<length]), "CBOR prefix")
        }
    }

    /// Digits: decoding then encoding gives the same text.
    static func digits(_ input: [UInt8]) {
        let text = String(decoding: input, as: UTF8.self)
        guard let bytes = try? DigitEncoding.decode(text) else { return }
        check(DigitEncoding.encode(bytes) == text, "digits round trip")
    }

    /// The QR payload, as CBOR and as `FIDO:/` text: the map a parsed payload writes parses to a
    /// payload that writes the same map (``QRCodePayload/otherKeys`` records keys it does not write).
    static func qr(_ input: [UInt8]) {
        if let payload = try? QRCodePayload(cbor: input) {
            check((try? QRCodePayload(cbor: payload.cbor))?.cborValue == payload.cborValue, "QR payload re-parse")
        }
        _ = try? QRCodePayload(url: String(decoding: input, as: UTF8.self))
    }

    static let eidKey = EIDKey(bytes: (0..<64).map { UInt8($0) })!

    /// Advert service data: decrypt with a fixed key, and the plaintext layout on its own.
    static func advert(_ input: [UInt8]) {
        _ = try? AdvertServiceData(input)
        _ = eidKey.trialDecrypt(input)
        if let plaintext = try? AdvertPlaintext(bytes: input.prefix(16)) {
            // What decrypts under the key must be the plaintext the key encrypted.
            let sealed = eidKey.encrypt(plaintext)
            check(eidKey.trialDecrypt(sealed).map { $0 == plaintext } ?? false, "advert seal/open")
        }
    }

    /// The advert suffix: a parsed suffix re-parses to the same PSM.
    static func advertSuffix(_ input: [UInt8]) {
        guard let suffix = try? AdvertSuffix(decoding: input) else { return }
        check((try? AdvertSuffix(decoding: suffix.encoded))?.psm == suffix.psm, "suffix re-parse")
    }

    static let psk = PSK(bytes: [UInt8](repeating: 7, count: 32))!
    static let staticKey = try! P256.KeyAgreement.PrivateKey(rawRepresentation: [UInt8](repeating: 1, count: 32))
    static let ephemeralKey = try! P256.KeyAgreement.PrivateKey(rawRepresentation: [UInt8](repeating: 2, count: 32))

    /// msg1 as the phone reads it, under both patterns.
    static func handshakeResponder(_ input: [UInt8]) {
        _ = try? HandshakeResponder.respond(
            to: input, pattern: .knpsk0(initiatorStaticKey: staticKey.publicKey), psk: psk, ephemeralKey: ephemeralKey)
        _ = try? HandshakeResponder.respond(
            to: input, pattern: .nkpsk0(staticKey: staticKey), psk: psk, ephemeralKey: ephemeralKey)
    }

    static let initiators = [
        HandshakeInitiator(pattern: .knpsk0(identityKey: staticKey), psk: psk, ephemeralKey: ephemeralKey),
        HandshakeInitiator(
            pattern: .nkpsk0(responderStaticKey: staticKey.publicKey), psk: psk, ephemeralKey: ephemeralKey),
    ]

    /// msg2 as the client reads it, under both patterns.
    static func handshakeInitiator(_ input: [UInt8]) {
        for initiator in initiators { _ = try? initiator.processMessage2(input) }
    }

    static let readKey = SymmetricKey(data: [UInt8](repeating: 3, count: 32))
    static let writeKey = SymmetricKey(data: [UInt8](repeating: 4, count: 32))

    /// The crypter: the input as ciphertext under both constructions, and as a message that must come
    /// back from seal then open with its padding.
    static func crypter(_ input: [UInt8]) {
        for construction in [TransportCrypter.Construction.new, .old] {
            var reader = TransportCrypter(readKey: readKey, writeKey: writeKey, construction: construction)
            _ = try? reader.decrypt(input)
            var sender = TransportCrypter(readKey: writeKey, writeKey: readKey, construction: construction)
            var receiver = TransportCrypter(readKey: readKey, writeKey: writeKey, construction: construction)
            guard let sealed = try? sender.encrypt(input) else {
                check(false, "encrypt failed")
                return
            }
            check((try? receiver.decrypt(sealed)) == input, "crypter seal/open")
        }
    }

    /// Both paddings: whatever unpads re-pads to something that unpads to the same message.
    static func padding(_ input: [UInt8]) {
        if let message = try? TransportPadding.unpad(input) {
            check((try? TransportPadding.unpad(TransportPadding.pad(message))) == message, "transport padding")
        }
        if let unpadded = try? RevisionZeroPadding.unpad(input) {
            let again = try? RevisionZeroPadding.unpad(
                RevisionZeroPadding.pad(unpadded.bytes, trailer: unpadded.trailer))
            check(again?.bytes == unpadded.bytes, "revision 0 padding")
        }
    }

    /// The post-handshake message: what parses encodes to something that parses to the same map.
    static func postHandshake(_ input: [UInt8]) {
        guard let message = try? PostHandshakeMessage(decoding: input) else { return }
        let again = try? PostHandshakeMessage(decoding: message.encoded())
        check(again?.cborValue == message.cborValue, "post-handshake re-parse")
    }

    static func update(_ input: [UInt8]) {
        guard let message = try? UpdateMessage(decoding: input) else { return }
        _ = message.frame(padded: true)
        _ = message.frame(padded: false)
    }

    /// Linking info: what parses survives its own encoding (keys other than 1–6 and 999 are dropped).
    static func linking(_ input: [UInt8]) {
        guard let info = try? LinkingInfo(cbor: input) else { return }
        check((try? LinkingInfo(cbor: info.cbor)) == info, "linking re-parse")
    }

    static func frame(_ input: [UInt8]) {
        if let frame = try? HybridFrame(decoding: input, revision: .one) {
            check(frame.encoded(revision: .one) == input, "frame round trip")
        }
        if let frame = try? HybridFrame(decoding: input, revision: .zero) {
            check(frame.encoded(revision: .zero) == input, "revision 0 frame round trip")
        }
    }

    static func clientPayload(_ input: [UInt8]) {
        _ = try? ClientPayload(headerValue: String(decoding: input, as: UTF8.self))
    }

    /// The relay's request paths (TunnelRelay routes with this parser).
    static func tunnelPath(_ input: [UInt8]) {
        _ = try? TunnelPath(parsing: String(decoding: input, as: UTF8.self))
    }

    /// Traps when an oracle fails, so that libFuzzer reports the input (HybridCTAP's targets use it too).
    static func check(_ condition: Bool, _ what: StaticString) {
        if !condition { fatalError("oracle failed: \(what)") }
    }
}
