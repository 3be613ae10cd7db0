import Crypto

/// The public key of an X.509 attestation certificate (the first of a packed statement's `x5c`),
/// read with a minimal DER walk: Certificate → tbsCertificate → version (must be v3, WebAuthn
/// §8.2.1), serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo. Only the
/// structure up to the key is read; the chain and the certificate's own signature are not verified.
enum AttestationCertificateKey {
    /// Why a certificate gave no key.
    enum Failure: Error, Equatable, CustomStringConvertible {
        case malformedDER(String)
        case notVersion3
        case notP256

        var description: String {
            switch self {
            case .malformedDER(let what): "malformed DER: \(what)"
            case .notVersion3: "not an X.509 v3 certificate"
            case .notP256: "the subject key is not a P-256 key"
            }
        }
    }

    /// The certificate's subject public key, for ES256 verification.
    static func publicKey(certificate der: [UInt8]) throws(Failure) -> P256.Signing.PublicKey {
        let (certificate, _) = try element(der[...], tag: 0x30, "Certificate")
        let (tbs, _) = try element(certificate.content, tag: 0x30, "tbsCertificate")
        var rest = tbs.content
        guard rest.first == 0xA0 else { throw .notVersion3 }
        let (version, afterVersion) = try element(rest, tag: 0xA0, "version")
        let (versionNumber, _) = try element(version.content, tag: 0x02, "version number")
        guard Array(versionNumber.content) == [0x02] else { throw .notVersion3 }
        rest = afterVersion
        for (tag, name) in [
            (UInt8(0x02), "serialNumber"), (0x30, "signature"), (0x30, "issuer"), (0x30, "validity"), (0x30, "subject"),
        ] {
            rest = try element(rest, tag: tag, name).rest
        }
        let (keyInfo, _) = try element(rest, tag: 0x30, "subjectPublicKeyInfo")
        guard let key = try? P256.Signing.PublicKey(derRepresentation: Array(keyInfo.whole)) else { throw .notP256 }
        return key
    }

    private struct Element {
        var content: ArraySlice<UInt8>
        var whole: ArraySlice<UInt8>
    }

    /// Reads one DER element with `tag` at the start of `bytes`; returns it and what follows.
    private static func element(
        _ bytes: ArraySlice<UInt8>, tag: UInt8, _ name: String
    ) throws(Failure) -> (element: Element, rest: ArraySlice<UInt8>) {
        var index = bytes.startIndex
        guard index < bytes.endIndex, bytes[index] == tag else { throw .malformedDER("\(name): expected tag \(tag)") }
        index += 1
        guard index < bytes.endIndex else { throw .malformedDER("\(name): no length") }
        var length = Int(bytes[index])
        index += 1
        if length >= 0x80 {
            let count = length - 0x80
            guard (1...3).contains(count), bytes.endIndex - index >= count else {
                throw .malformedDER("\(name): bad length")
            }
            length = bytes[index..<(index + count)].reduce(0) { $0 << 8 | Int($1) }
            index += count
        }
        guard bytes.endIndex - index >= length else { throw .malformedDER("\(name): truncated") }
        let end = index + length
        return (Element(content: bytes[index..<end], whole: bytes[bytes.startIndex..<end]), bytes[end...])
    }
}
