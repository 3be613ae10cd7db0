import Crypto
import Foundation

/// A self-signed P-256 attestation certificate and its key, made by OpenSSL 3.0 (an independent
/// peer), not by this project:
///
///     openssl ecparam -name prime256v1 -genkey -noout -out att.key
///     openssl req -new -x509 -key att.key -out att.pem -days 36500 \
///       -subj "/C=US/O=hybrid-conformance test/OU=Authenticator Attestation/CN=test attestation" \
///       -addext "basicConstraints=critical,CA:FALSE"
///     openssl x509 -in att.pem -outform DER | base64 -w0; openssl pkcs8 -topk8 -nocrypt -in att.key
enum AttestationCertificateFixture {
    static let certificate: [UInt8] = Array(
        Data(
            base64Encoded: """
                MIICMTCCAdagAwIBAgIUM4ytfzMAGfd4cKfc3IP2QywbHtYwCgYIKoZIzj0EAwIwbjELMAkGA1UEBhMCVVMxIDAeBgNVBAoMF2h5YnJpZC1jb25mb3JtYW5jZSB0ZXN0MSIwIAYDVQQLDBlBdXRoZW50aWNhdG9yIEF0dGVzdGF0aW9uMRkwFwYDVQQDDBB0ZXN0IGF0dGVzdGF0aW9uMCAXDTI2MTEyNDAwMTMwOFoYDzIxMjYxMDMxMDAxMzA4WjBuMQswCQYDVQQGEwJVUzEgMB4GA1UECgwXaHlicmlkLWNvbmZvcm1hbmNlIHRlc3QxIjAgBgNVBAsMGUF1dGhlbnRpY2F0b3IgQXR0ZXN0YXRpb24xGTAXBgNVBAMMEHRlc3QgYXR0ZXN0YXRpb24wWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAATLGRhHJ1nM+NGZimI0PWf7vECFXmFvFq/P83bNE2IabQUEPj2DXFMpou4vBH5Mx12LqOHXaM9eDea6BGfwJtkwo1AwTjAdBgNVHQ4EFgQUUPQ9H/RVGEkd05SUXcuTjJXXhgswHwYDVR0jBBgwFoAUUPQ9H/RVGEkd05SUXcuTjJXXhgswDAYDVR0TAQH/BAIwADAKBggqhkjOPQQDAgNJADBGAiEAj8Ki7uH7+1bNRA+s8r4x+sDoKGuS5ZkH8T8cdYZC3yACIQC8MTQEK6Mwm93w7KapXuQxjtZbjbyOGtf+ilMfQWJexQ==
                """.replacingOccurrences(of: "\n", with: "").replacingOccurrences(of: " ", with: ""))!)

    static let privateKeyPEM = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgD/fujdqPAVsjQw1o
        9W9G7xZLDABU8npubLOM0pSQP96hRANCAATLGRhHJ1nM+NGZimI0PWf7vECFXmFv
        Fq/P83bNE2IabQUEPj2DXFMpou4vBH5Mx12LqOHXaM9eDea6BGfwJtkw
        -----END PRIVATE KEY-----
        """

    static func privateKey() throws -> P256.Signing.PrivateKey {
        try P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM)
    }
}
