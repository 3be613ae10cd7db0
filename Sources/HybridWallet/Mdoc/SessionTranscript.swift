import Crypto
import HybridCore

/// The mdoc `SessionTranscript` of an OpenID4VP request over the Digital Credentials API
/// (OpenID4VP 1.0 Appendix B.2.6.2, ISO/IEC 18013-5 §9.1.5.1):
///
/// ```cddl
/// SessionTranscript = [null, null, OpenID4VPDCAPIHandover]
/// OpenID4VPDCAPIHandover = ["OpenID4VPDCAPIHandover", OpenID4VPDCAPIHandoverInfoHash]
/// OpenID4VPDCAPIHandoverInfoHash = bstr  ; SHA-256 of the CBOR of OpenID4VPDCAPIHandoverInfo
/// OpenID4VPDCAPIHandoverInfo = [origin, nonce, jwkThumbprint]
/// ```
///
/// `origin` is the verifier's origin without the `origin:` prefix; `jwkThumbprint` is `null` for
/// response mode `dc_api` (an unencrypted response), the verifier key's RFC 7638 thumbprint for
/// `dc_api.jwt`. None of these have maps, so the CBOR is the same in every deterministic encoder.
package enum SessionTranscript {
    /// The CBOR of `OpenID4VPDCAPIHandoverInfo`.
    package static func handoverInfo(origin: String, nonce: String, jwkThumbprint: [UInt8]?) -> [UInt8] {
        CBOREncoder.encode(.array([.text(origin), .text(nonce), jwkThumbprint.map { .bytes($0) } ?? .null]))
    }

    /// The CBOR of `OpenID4VPDCAPIHandover`.
    package static func handover(origin: String, nonce: String, jwkThumbprint: [UInt8]?) -> [UInt8] {
        let hash = SHA256.hash(data: handoverInfo(origin: origin, nonce: nonce, jwkThumbprint: jwkThumbprint))
        return CBOREncoder.encode(.array([.text("OpenID4VPDCAPIHandover"), .bytes(Array(hash))]))
    }

    /// The CBOR of the `SessionTranscript`.
    package static func dcAPI(origin: String, nonce: String, jwkThumbprint: [UInt8]? = nil) -> [UInt8] {
        [0x83, 0xf6, 0xf6] + handover(origin: origin, nonce: nonce, jwkThumbprint: jwkThumbprint)
    }
}
