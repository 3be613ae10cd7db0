import Crypto
import Testing

@testable import HybridConformance

/// The minimal DER walk that finds an attestation certificate's key, on a certificate from OpenSSL.
@Suite struct AttestationCertificateKeyTests {
    @Test("the key of OpenSSL's certificate is the key OpenSSL generated")
    func fixtureKey() throws {
        let key = try AttestationCertificateKey.publicKey(certificate: AttestationCertificateFixture.certificate)
        #expect(key.x963Representation == (try AttestationCertificateFixture.privateKey()).publicKey.x963Representation)
    }

    @Test("every truncation and a version-1 header give a typed failure, never a crash or a key")
    func malformedCertificates() throws {
        let certificate = AttestationCertificateFixture.certificate
        for length in 0..<certificate.count {
            #expect(throws: AttestationCertificateKey.Failure.self) {
                _ = try AttestationCertificateKey.publicKey(certificate: Array(certificate.prefix(length)))
            }
        }
        // Drop the [0] version element (a0 03 02 01 02, after the two 4-byte headers) and shorten
        // both lengths by 5: a well-formed v1 certificate.
        #expect(
            Array(certificate[0..<13]) == [
                0x30, 0x82, 0x02, 0x31, 0x30, 0x82, 0x01, 0xD6, 0xA0, 0x03, 0x02, 0x01, 0x02,
            ])
        var versionless = certificate
        versionless.removeSubrange(8..<13)
        versionless.replaceSubrange(2..<4, with: [0x02, 0x2C])
        versionless.replaceSubrange(6..<8, with: [0x01, 0xD1])
        #expect(throws: AttestationCertificateKey.Failure.notVersion3) {
            _ = try AttestationCertificateKey.publicKey(certificate: versionless)
        }
    }
}
