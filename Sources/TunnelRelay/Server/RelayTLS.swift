import NIOSSL

/// The relay's TLS server settings.
///
/// - TLS 1.2 minimum (1.0 and 1.1 are deprecated, RFC 8996; every caBLE peer speaks 1.2 or 1.3),
///   TLS 1.3 preferred (BoringSSL's three AEAD suites, not configurable).
/// - TLS 1.2 suites: ECDHE key exchange with an AEAD only (forward secrecy; no CBC, no RSA key
///   transport), AES-128-GCM first as Chrome and Android prefer. SwiftNIO-SSL's default list would
///   also accept CBC and static-RSA suites.
/// - Key-share groups: BoringSSL's default (X25519MLKEM768, X25519, P-256, P-384). A client that
///   offers only X25519 (as most do today) gets X25519, the cheapest; one that offers the
///   post-quantum hybrid (Chrome) gets it, which costs one ML-KEM-768 encapsulation more and is
///   kept on purpose.
/// - Session tickets: BoringSSL's default (on), so a returning client can resume; a TLS 1.3
///   resumption still does the X25519 exchange and saves the certificate and its signature.
///
/// The certificate's key type is the operator's: ECDSA P-256 costs ~500 µs less per handshake
/// than RSA 2048 (`docs/relay.md`, "TLS and sizing a fleet").
enum RelayTLS {
    /// The TLS 1.2 cipher suites, in BoringSSL's names.
    static let tls12CipherSuites = [
        "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256",
        "ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-RSA-AES256-GCM-SHA384",
        "ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-RSA-CHACHA20-POLY1305",
    ].joined(separator: ":")

    /// The server context for the certificate chain and key in `files`.
    static func context(_ files: RelayConfiguration.TLSFiles) throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(files.certificateChain).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: files.privateKey, format: .pem))
        )
        configuration.minimumTLSVersion = .tlsv12
        configuration.cipherSuites = tls12CipherSuites
        return try NIOSSLContext(configuration: configuration)
    }
}
