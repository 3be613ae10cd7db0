import Crypto
import Foundation

/// Builds an mdoc `DeviceResponse` (ISO/IEC 18013-5 §8.3.2.1.2.2) holding one document with only
/// the requested elements, device-signed over the session transcript:
///
/// ```cddl
/// DeviceResponse = {"version": "1.0", "documents": [Document], "status": 0}
/// Document = {"docType": tstr, "issuerSigned": IssuerSigned, "deviceSigned": DeviceSigned}
/// DeviceSigned = {"nameSpaces": DeviceNameSpacesBytes, "deviceAuth": {"deviceSignature": COSE_Sign1}}
/// DeviceNameSpacesBytes = #6.24(bstr .cbor {})            ; no device-signed elements
/// DeviceAuthentication = ["DeviceAuthentication", SessionTranscript, DocType, DeviceNameSpacesBytes]
/// DeviceAuthenticationBytes = #6.24(bstr .cbor DeviceAuthentication)
/// ```
///
/// `deviceSignature` is a COSE_Sign1 (RFC 9052 §4.2–4.4) with protected header `{1: -7}` (ES256),
/// an empty unprotected header and a detached (`null`) payload; it signs the `Sig_structure`
/// `["Signature1", protected, h'', DeviceAuthenticationBytes]` (§9.1.3.4). The issuer's items and
/// `issuerAuth` are copied byte for byte.
package enum DeviceResponseBuilder {
    /// The DeviceResponse CBOR.
    /// - Parameters:
    ///   - credential: the mdoc.
    ///   - elements: the elements to reveal (from `credential.elements`).
    ///   - sessionTranscript: the CBOR of the `SessionTranscript`.
    ///   - deviceKey: the key the MSO's `deviceKey` names (the caller checks they match).
    package static func deviceResponse(
        _ credential: MdocCredential, elements: [MdocCredential.Element], sessionTranscript: [UInt8],
        deviceKey: DeviceKey
    ) -> [UInt8] {
        var namespaces: [(MdocCBOR, MdocCBOR)] = []
        for element in credential.elements where elements.contains(element) {
            let item = MdocCBOR.encoded(element.itemBytes)
            if let index = namespaces.firstIndex(where: { $0.0 == .text(element.namespace) }),
                case .array(let items) = namespaces[index].1
            {
                namespaces[index].1 = .array(items + [item])
            } else {
                namespaces.append((.text(element.namespace), .array([item])))
            }
        }
        let deviceNameSpacesBytes = MdocCBOR.tag(24, .bytes(MdocCBOR.map([]).encoded))
        let deviceAuthentication = MdocCBOR.array([
            .text("DeviceAuthentication"), .encoded(sessionTranscript), .text(credential.docType),
            deviceNameSpacesBytes,
        ])
        let deviceAuthenticationBytes = MdocCBOR.tag(24, .bytes(deviceAuthentication.encoded)).encoded
        let protected = MdocCBOR.map([(.unsigned(1), .negative(6))]).encoded
        let toBeSigned = MdocCBOR.array([
            .text("Signature1"), .bytes(protected), .bytes([]), .bytes(deviceAuthenticationBytes),
        ]).encoded
        // Signing with a P-256 key in memory does not fail.
        let signature = (try? deviceKey.privateKey.signature(for: toBeSigned).rawRepresentation) ?? Data()
        let deviceSignature = MdocCBOR.array([.bytes(protected), .map([]), .null, .bytes(Array(signature))])
        let document = MdocCBOR.map([
            (.text("docType"), .text(credential.docType)),
            (
                .text("issuerSigned"),
                .map([
                    (.text("nameSpaces"), .map(namespaces)),
                    (.text("issuerAuth"), .encoded(credential.issuerAuthBytes)),
                ])
            ),
            (
                .text("deviceSigned"),
                .map([
                    (.text("nameSpaces"), deviceNameSpacesBytes),
                    (.text("deviceAuth"), .map([(.text("deviceSignature"), deviceSignature)])),
                ])
            ),
        ])
        return MdocCBOR.map([
            (.text("version"), .text("1.0")), (.text("documents"), .array([document])), (.text("status"), .unsigned(0)),
        ]).encoded
    }
}
