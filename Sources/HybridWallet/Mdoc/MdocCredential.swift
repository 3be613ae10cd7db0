import Crypto

/// An mdoc as the wallet stores it: the issuer's `IssuerSigned` (ISO/IEC 18013-5 §8.3.2.1.2.2),
///
/// ```cddl
/// IssuerSigned = {? "nameSpaces": IssuerNameSpaces, "issuerAuth": IssuerAuth}
/// IssuerNameSpaces = {+ NameSpace => [+ IssuerSignedItemBytes]}
/// IssuerSignedItemBytes = #6.24(bstr .cbor IssuerSignedItem)
/// IssuerSignedItem = {"digestID": uint, "random": bstr, "elementIdentifier": tstr, "elementValue": any}
/// IssuerAuth = COSE_Sign1 ; payload: MobileSecurityObjectBytes = #6.24(bstr .cbor MobileSecurityObject)
/// ```
///
/// Checked when read: `issuerAuth` is a COSE_Sign1 (RFC 9052 §4.2) with a protected `alg` and a
/// signature; its MSO (§9.1.2.4) has `digestAlgorithm` `SHA-256`, a `docType`, and a P-256
/// `deviceKeyInfo.deviceKey` (COSE_Key, RFC 9053 §7.1.1); and every item's SHA-256 over its
/// `IssuerSignedItemBytes` equals the MSO's `valueDigests` entry for its `digestID`. The issuer's
/// signature is checked for shape only: which issuers to trust is the verifier's decision.
package struct MdocCredential: Hashable, Sendable {
    /// Largest `IssuerSigned` accepted, in bytes.
    package static let maximumSize = 256 << 10

    /// One data element: its namespace, identifier, value and the issuer's exact bytes.
    package struct Element: Hashable, Sendable {
        package let namespace: String
        package let identifier: String
        package let value: MdocCBOR
        /// The `IssuerSignedItemBytes` (tag 24 and all), as the issuer encoded them.
        package let itemBytes: [UInt8]
    }

    /// The MSO's `docType`.
    package let docType: String
    /// The MSO's device key.
    package let deviceKey: P256PublicJWK
    /// Every data element, in issuer order.
    package let elements: [Element]
    /// `issuerAuth`, as the issuer encoded it.
    package let issuerAuthBytes: [UInt8]

    /// Reads `IssuerSigned` CBOR.
    /// - Throws: ``WalletError/invalidCredential(_:)`` saying what is wrong.
    package init(issuerSigned bytes: [UInt8]) throws(WalletError) {
        guard bytes.count <= Self.maximumSize else { throw .invalidCredential("longer than 256 KiB") }
        let issuerSigned = try MdocCBORReader.decode(bytes)
        guard let issuerAuth = issuerSigned["issuerAuth"] else { throw .invalidCredential("no issuerAuth") }
        let mso = try Self.mobileSecurityObject(issuerAuth)
        guard mso["digestAlgorithm"]?.textValue == "SHA-256" else {
            throw .invalidCredential("MSO digestAlgorithm is not SHA-256")
        }
        guard let docType = mso["docType"]?.textValue, !docType.isEmpty else { throw .invalidCredential("no docType") }
        guard let coseKey = mso["deviceKeyInfo"]?["deviceKey"] else { throw .invalidCredential("no deviceKey") }
        self.docType = docType
        deviceKey = try Self.p256(coseKey)
        issuerAuthBytes = issuerAuth.encoded
        var elements: [Element] = []
        if case .map(let namespaces)? = issuerSigned["nameSpaces"] {
            for (key, items) in namespaces {
                guard let namespace = key.textValue, let list = items.arrayValue else {
                    throw .invalidCredential("nameSpaces is not a map of text to arrays")
                }
                for item in list {
                    elements.append(try Self.element(item, namespace: namespace, digests: mso["valueDigests"]))
                }
            }
        }
        self.elements = elements
    }

    /// The element a claims path selects (OpenID4VP 1.0 §7.2: exactly `[namespace, identifier]`),
    /// if present and, with `values`, equal to one of them.
    package func element(_ path: [ClaimsPathComponent], values: [JSONItem]? = nil) -> Element? {
        guard path.count == 2, case .key(let namespace) = path[0], case .key(let identifier) = path[1],
            let element = elements.first(where: { $0.namespace == namespace && $0.identifier == identifier })
        else { return nil }
        if let values {
            guard let json = element.value.jsonValue, values.contains(json) else { return nil }
        }
        return element
    }

    /// The decoded MSO from `issuerAuth` (a COSE_Sign1 whose payload is `#6.24(bstr .cbor MSO)`).
    private static func mobileSecurityObject(_ issuerAuth: MdocCBOR) throws(WalletError) -> MdocCBOR {
        guard let parts = issuerAuth.arrayValue, parts.count == 4, let protected = parts[0].bytesValue,
            case .map = parts[1], let payload = parts[2].bytesValue, let signature = parts[3].bytesValue,
            !signature.isEmpty
        else { throw .invalidCredential("issuerAuth is not a COSE_Sign1 with a payload") }
        guard let header = try? MdocCBORReader.decode(protected), header[int: 1] != nil else {
            throw .invalidCredential("issuerAuth has no protected alg")
        }
        guard let msoBytes = try MdocCBORReader.decode(payload).embeddedCBOR else {
            throw .invalidCredential("issuerAuth payload is not MobileSecurityObjectBytes")
        }
        return try MdocCBORReader.decode(msoBytes)
    }

    /// A P-256 EC2 COSE_Key (kty 2, crv 1, x, y) as a JWK.
    private static func p256(_ key: MdocCBOR) throws(WalletError) -> P256PublicJWK {
        guard key[int: 1] == .unsigned(2), key[int: -1] == .unsigned(1), let x = key[int: -2]?.bytesValue,
            let y = key[int: -3]?.bytesValue, x.count == 32, y.count == 32,
            let publicKey = try? P256.Signing.PublicKey(x963Representation: [0x04] + x + y)
        else { throw .invalidCredential("deviceKey is not a P-256 COSE_Key") }
        return P256PublicJWK(publicKey)
    }

    /// One `IssuerSignedItemBytes`, checked against the MSO's digest.
    private static func element(_ item: MdocCBOR, namespace: String, digests: MdocCBOR?) throws(WalletError)
        -> Element
    {
        guard let inner = item.embeddedCBOR else { throw .invalidCredential("an item is not IssuerSignedItemBytes") }
        let decoded = try MdocCBORReader.decode(inner)
        guard case .unsigned(let digestID)? = decoded["digestID"],
            let identifier = decoded["elementIdentifier"]?.textValue,
            decoded["random"]?.bytesValue != nil, let value = decoded["elementValue"]
        else { throw .invalidCredential("an IssuerSignedItem lacks digestID, random, identifier or value") }
        let itemBytes = item.encoded
        guard digestID <= UInt64(Int64.max), let expected = digests?[namespace]?[int: Int64(digestID)]?.bytesValue,
            expected == Array(SHA256.hash(data: itemBytes))
        else { throw .invalidCredential("\(namespace)/\(identifier) does not match the MSO digest") }
        return Element(namespace: namespace, identifier: identifier, value: value, itemBytes: itemBytes)
    }
}
