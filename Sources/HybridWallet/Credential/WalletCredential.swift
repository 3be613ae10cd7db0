import Foundation

/// The credential formats this wallet holds, by their OpenID4VP format identifiers.
package enum CredentialFormat: String, Hashable, Sendable, CaseIterable {
    /// IETF SD-JWT VC (OpenID4VP 1.0 Appendix B.3).
    case sdJWTVC = "dc+sd-jwt"
    /// ISO/IEC 18013-5 mdoc (OpenID4VP 1.0 Appendix B.2).
    case mdoc = "mso_mdoc"
}

/// One identity credential as the wallet keeps it: the issuer's bytes, unchanged, and what the
/// wallet knows of them. The bytes are the compact SD-JWT (`<JWT>~<D1>~…~`, ASCII) or the mdoc's
/// `IssuerSigned` CBOR.
package struct WalletCredential: Hashable, Sendable {
    /// The wallet's name for it: random, lower-case hex, shown by `wallet list`.
    package let id: String
    /// Its format.
    package let format: CredentialFormat
    /// The issuer's bytes.
    package let bytes: [UInt8]
    /// When it was added.
    package let addedAt: Date

    /// A credential record; ``parsed()`` checks the bytes.
    package init(id: String, format: CredentialFormat, bytes: [UInt8], addedAt: Date) {
        self.id = id
        self.format = format
        self.bytes = bytes
        self.addedAt = addedAt
    }

    /// The bytes read in their format.
    /// - Throws: ``WalletError/invalidCredential(_:)``.
    package func parsed() throws(WalletError) -> ParsedCredential {
        switch format {
        case .sdJWTVC:
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw .invalidCredential("an SD-JWT is not text")
            }
            return .sdJWT(try SDJWTCredential(compact: text))
        case .mdoc:
            return .mdoc(try MdocCredential(issuerSigned: bytes))
        }
    }
}

/// A stored credential read in its format.
package enum ParsedCredential: Hashable, Sendable {
    case sdJWT(SDJWTCredential)
    case mdoc(MdocCredential)

    /// The format.
    package var format: CredentialFormat {
        switch self {
        case .sdJWT: .sdJWTVC
        case .mdoc: .mdoc
        }
    }

    /// The type: the SD-JWT VC's `vct` or the mdoc's docType.
    package var type: String {
        switch self {
        case .sdJWT(let credential): credential.vct
        case .mdoc(let credential): credential.docType
        }
    }

    /// The key the issuer bound the credential to.
    package var boundKey: P256PublicJWK {
        switch self {
        case .sdJWT(let credential): credential.boundKey
        case .mdoc(let credential): credential.deviceKey
        }
    }
}
