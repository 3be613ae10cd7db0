import Crypto
import Foundation
import HybridCore

/// A FIDO Alliance Credential Exchange Format 1.0 document, reduced to what a passkey authenticator
/// keeps: the header and its `passkey` credentials. Sans-IO: it decodes from bytes and encodes to
/// bytes; files, terminals and the store are the caller's.
///
/// Specification: Credential Exchange Format, Proposed Standard 2025-08-14,
/// https://fidoalliance.org/specs/cx/cxf-v1.0-ps-20250814.html, with the errata of 2026-03-09
/// (https://fidoalliance.org/specs/cx/cxf-v1.0-errata-20260309.html, which corrects the Appendix A
/// example). Its sections are cited by their titles (its numbering moved between drafts):
/// - "Header": the header (`version`, `exporterRpId`, `exporterDisplayName`, `timestamp`, `accounts`), the
///   account (`id`, `items`) and the item (`id`, `creationAt`, `title`, `credentials`);
/// - "Passkey": the `passkey` credential (`credentialId`, `rpId`, `username`, `userDisplayName`,
///   `userHandle`, `key`, `fido2Extensions`) and its note on signature counters;
/// - "Fido2Extensions" and "Fido2HmacCredentials": `hmacCredentials` {`algorithm` "hmac-sha256", `credWithUV`,
///   `credWithoutUV`}: the CredRandom secrets of CTAP 2.1 §12.5 (hmac-secret), which also carry the
///   WebAuthn prf extension; `credBlob`, `largeBlob` and `payments` are read but not kept.
///
/// Reading is strict about what it keeps and lenient about the rest: credentials of other types
/// are listed in ``skipped`` and unknown members are ignored, but every member a passkey needs must
/// be present and valid, or the whole document is refused with a ``CXFError`` naming the member.
package struct CXFDocument: Sendable {
    /// The credential `type` of a passkey ("Passkey").
    package static let passkeyType = "passkey"
    /// The largest document read by default, in bytes (8 MiB: thousands of passkeys).
    package static let defaultSizeLimit = 8 << 20
    /// WebAuthn L3 §4 (credential ID): at most 1023 bytes.
    static let credentialIDLengths = 1...1023
    /// WebAuthn L3 §5.4.3 (user handle): 1 to 64 bytes.
    static let userHandleLengths = 1...64
    /// CTAP 2.1 §12.5: CredRandomWithUV and CredRandomWithoutUV are 32 bytes each.
    static let hmacSecretLength = 32
    /// The deepest nesting read: a passkey's `hmacCredentials` is 7 levels down.
    static let maxDepth = 32

    /// The format version ("Header": `version`); this reader takes major version 1.
    package var version: (major: Int, minor: Int)
    /// The exporting application's RP ID ("Header": `exporterRpId`).
    package var exporterRPID: String
    /// The exporting application's name for people ("Header": `exporterDisplayName`).
    package var exporterDisplayName: String
    /// When the export was made, in UNIX seconds ("Header": `timestamp`).
    package var timestamp: UInt64
    /// The passkeys, in document order.
    package var passkeys: [CXFPasskey]
    /// Credentials of other types, in document order: read past, never imported.
    package var skipped: [CXFSkippedCredential]

    /// A document to write.
    package init(
        exporterRPID: String, exporterDisplayName: String, timestamp: UInt64, passkeys: [CXFPasskey]
    ) {
        version = (1, 0)
        self.exporterRPID = exporterRPID
        self.exporterDisplayName = exporterDisplayName
        self.timestamp = timestamp
        self.passkeys = passkeys
        skipped = []
    }

    /// Reads a CXF document from its JSON bytes.
    /// - Parameters:
    ///   - bytes: the whole document (UTF-8 JSON; nothing may follow the top-level object).
    ///   - sizeLimit: larger documents are refused before they are parsed.
    /// - Throws: ``CXFError``, naming the first member at fault.
    package init(bytes: [UInt8], sizeLimit: Int = defaultSizeLimit) throws(CXFError) {
        guard bytes.count <= sizeLimit else { throw .tooLarge(limit: sizeLimit) }
        // The core's strict reader first (RFC 8259 as the hybrid JSON messages are read: a member
        // named twice, a lone surrogate or a raw control character refuses the document), so no
        // two readers can disagree about which of two same-named members counts; the members are
        // then taken from its re-encoding, which has each name once.
        let strict: JSONNode
        do {
            strict = try JSONNode(parsing: bytes, maxBytes: sizeLimit, maxDepth: Self.maxDepth)
        } catch {
            throw Self.describe(error)
        }
        let header: CXFWire.Header
        do {
            header = try JSONDecoder().decode(CXFWire.Header.self, from: Data(strict.encoded))
        } catch let error as DecodingError {
            throw Self.describe(error)
        } catch {
            throw .malformedJSON(field: "", reason: "unreadable")
        }
        guard let version = header.version else { throw .missingMember(field: "version") }
        guard let major = version.major else { throw .missingMember(field: "version.major") }
        guard let minor = version.minor else { throw .missingMember(field: "version.minor") }
        guard major == 1, minor >= 0 else { throw .unsupportedVersion(major: major, minor: minor) }
        self.version = (major, minor)
        guard let exporterRPID = header.exporterRpId else { throw .missingMember(field: "exporterRpId") }
        self.exporterRPID = exporterRPID
        guard let exporterDisplayName = header.exporterDisplayName else {
            throw .missingMember(field: "exporterDisplayName")
        }
        self.exporterDisplayName = exporterDisplayName
        guard let timestamp = header.timestamp else { throw .missingMember(field: "timestamp") }
        self.timestamp = timestamp
        guard let accounts = header.accounts else { throw .missingMember(field: "accounts") }

        var passkeys: [CXFPasskey] = []
        var skipped: [CXFSkippedCredential] = []
        var seenCredentials = Set<[UInt8]>()
        var seenAccounts = Set<[UInt8]>()
        for (accountIndex, account) in accounts.enumerated() {
            let accountPath = "accounts[\(accountIndex)]"
            guard let items = account.items else { throw .missingMember(field: accountPath + ".items") }
            for (itemIndex, item) in items.enumerated() {
                let itemPath = accountPath + ".items[\(itemIndex)]"
                guard let credentials = item.credentials else { throw .missingMember(field: itemPath + ".credentials") }
                for (index, credential) in credentials.enumerated() {
                    let path = itemPath + ".credentials[\(index)]"
                    guard let type = credential.type else { throw .missingMember(field: path + ".type") }
                    guard let wire = credential.passkey else {
                        skipped.append(CXFSkippedCredential(field: path, type: type, itemTitle: item.title))
                        continue
                    }
                    let passkey = try CXFPasskey(wire, field: path, item: item)
                    // One passkey per credential ID, and per account (RP ID and user handle).
                    guard seenCredentials.insert(passkey.credentialID).inserted,
                        seenAccounts.insert(Array(passkey.rpID.utf8) + [0] + passkey.userHandle).inserted
                    else { throw .duplicateCredential(field: path) }
                    passkeys.append(passkey)
                }
            }
        }
        self.passkeys = passkeys
        self.skipped = skipped
    }

    private static func describe(_ error: DigitalCredentialEnvelopeError) -> CXFError {
        switch error {
        case .tooLarge(_, let limit): .tooLarge(limit: limit)
        case .tooDeep(let limit): .malformedJSON(field: "", reason: "nested deeper than \(limit) levels")
        case .malformedJSON(let offset):
            .malformedJSON(
                field: "",
                reason: "invalid JSON at byte \(offset): bad syntax, a member name repeated in one object, "
                    + "a lone surrogate or a raw control character")
        case .missingMember, .wrongType, .unsupportedRequestType, .noRequests:
            .malformedJSON(field: "", reason: "invalid JSON")
        }
    }

    private static func describe(_ error: DecodingError) -> CXFError {
        switch error {
        case .keyNotFound(let key, let context):
            return .missingMember(field: CXFWire.path(context.codingPath + [key]))
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return .malformedJSON(field: CXFWire.path(context.codingPath), reason: "wrong JSON type")
        case .dataCorrupted(let context):
            let field = CXFWire.path(context.codingPath)
            return .malformedJSON(field: field, reason: field.isEmpty ? "invalid JSON" : "invalid value")
        @unknown default:
            return .malformedJSON(field: "", reason: "unreadable")
        }
    }
}

/// A credential of another type than `passkey`, which the reader passed over.
package struct CXFSkippedCredential: Hashable, Sendable {
    /// Its path in the document, e.g. `accounts[0].items[3].credentials[0]`.
    package let field: String
    /// Its `type` (`basic-auth`, `totp`, `note`, …).
    package let type: String
    /// The `title` of its item, if any.
    package let itemTitle: String?
}

/// The `hmacCredentials` of a passkey (CXF 1.0 "Fido2HmacCredentials"): the two CredRandom values of CTAP 2.1
/// §12.5, with algorithm `hmac-sha256`. An hmac-secret (or prf) output is
/// HMAC-SHA-256(CredRandom, salt), with `withUV` when the user was verified.
package struct CXFHMACCredentials: Hashable, Sendable {
    /// The only algorithm CXF 1.0 defines.
    package static let algorithm = "hmac-sha256"
    /// CredRandomWithUV (32 bytes).
    package let withUV: [UInt8]
    /// CredRandomWithoutUV (32 bytes).
    package let withoutUV: [UInt8]

    /// The two secrets.
    package init(withUV: [UInt8], withoutUV: [UInt8]) {
        self.withUV = withUV
        self.withoutUV = withoutUV
    }
}

/// One `passkey` credential (CXF 1.0 "Passkey"), checked.
package struct CXFPasskey: Sendable {
    /// `credentialId`: the WebAuthn credential ID (1–1023 bytes).
    package let credentialID: [UInt8]
    /// `rpId`: the RP ID (a domain name).
    package let rpID: String
    /// `username`: the account name (may be empty).
    package let username: String
    /// `userDisplayName`: the account's display name (may be empty).
    package let userDisplayName: String
    /// `userHandle`: the WebAuthn user handle (1–64 bytes).
    package let userHandle: [UInt8]
    /// `key`: the P-256 private key (PKCS#8 DER on the wire).
    package let privateKey: P256.Signing.PrivateKey
    /// `fido2Extensions.hmacCredentials`, when present.
    package let hmacCredentials: CXFHMACCredentials?
    /// The item's `creationAt` (UNIX seconds), when the document has one.
    package let createdAt: UInt64?
    /// The item's `title`, when the document has one.
    package let title: String?
    /// The names of the `fido2Extensions` members the document had that are not kept
    /// (`credBlob`, `largeBlob`, `payments`); empty when written here.
    package let droppedExtensions: [String]
    /// Where the reader found it (`accounts[0].items[1].credentials[0]`); empty when written here.
    package let field: String

    /// A passkey to write.
    package init(
        credentialID: [UInt8], rpID: String, username: String, userDisplayName: String, userHandle: [UInt8],
        privateKey: P256.Signing.PrivateKey, hmacCredentials: CXFHMACCredentials?, createdAt: UInt64?, title: String?
    ) {
        self.credentialID = credentialID
        self.rpID = rpID
        self.username = username
        self.userDisplayName = userDisplayName
        self.userHandle = userHandle
        self.privateKey = privateKey
        self.hmacCredentials = hmacCredentials
        self.createdAt = createdAt
        self.title = title
        droppedExtensions = []
        field = ""
    }

    init(_ wire: CXFWire.Passkey, field path: String, item: CXFWire.Item) throws(CXFError) {
        func required(_ value: String?, _ name: String) throws(CXFError) -> String {
            guard let value else { throw .missingMember(field: path + "." + name) }
            return value
        }
        func bytes(_ text: String, _ name: String, _ lengths: ClosedRange<Int>) throws(CXFError) -> [UInt8] {
            guard let bytes = CXFBase64URL.decode(text) else { throw .invalidBase64URL(field: name) }
            guard lengths.contains(bytes.count) else {
                throw .invalidLength(field: name, count: bytes.count, allowed: lengths)
            }
            return bytes
        }
        credentialID = try bytes(
            try required(wire.credentialId, "credentialId"), path + ".credentialId", CXFDocument.credentialIDLengths)
        rpID = try required(wire.rpId, "rpId")
        guard RelyingPartyIDSyntax.isDomain(rpID) else { throw .invalidRelyingPartyID(field: path + ".rpId") }
        username = try required(wire.username, "username")
        userDisplayName = try required(wire.userDisplayName, "userDisplayName")
        userHandle = try bytes(
            try required(wire.userHandle, "userHandle"), path + ".userHandle", CXFDocument.userHandleLengths)
        let keyField = path + ".key"
        guard let der = CXFBase64URL.decode(try required(wire.key, "key")) else {
            throw .invalidBase64URL(field: keyField)
        }
        privateKey = try PKCS8PrivateKey.p256(der, field: keyField)

        let extensionsPath = path + ".fido2Extensions"
        if let hmac = wire.fido2Extensions?.hmacCredentials {
            let hmacPath = extensionsPath + ".hmacCredentials"
            let algorithm = try required(hmac.algorithm, "fido2Extensions.hmacCredentials.algorithm")
            guard algorithm == CXFHMACCredentials.algorithm else {
                throw .unsupportedHMACAlgorithm(field: hmacPath + ".algorithm", algorithm: algorithm)
            }
            let length = CXFDocument.hmacSecretLength
            hmacCredentials = CXFHMACCredentials(
                withUV: try bytes(
                    try required(hmac.credWithUV, "fido2Extensions.hmacCredentials.credWithUV"),
                    hmacPath + ".credWithUV", length...length),
                withoutUV: try bytes(
                    try required(hmac.credWithoutUV, "fido2Extensions.hmacCredentials.credWithoutUV"),
                    hmacPath + ".credWithoutUV", length...length))
        } else {
            hmacCredentials = nil
        }
        var dropped: [String] = []
        if wire.fido2Extensions?.credBlob != nil { dropped.append("credBlob") }
        if wire.fido2Extensions?.largeBlob != nil { dropped.append("largeBlob") }
        if wire.fido2Extensions?.payments != nil { dropped.append("payments") }
        droppedExtensions = dropped
        createdAt = item.creationAt
        title = item.title
        field = path
    }
}

/// Base64url as CXF 1.0 writes byte strings (RFC 4648 §5): unpadded and canonical; a
/// reader also takes the `=` padding some writers add.
enum CXFBase64URL {
    static func decode(_ text: String) -> [UInt8]? {
        var unpadded = Substring(text)
        if text.utf8.count % 4 == 0 {
            while unpadded.hasSuffix("="), text.utf8.count - unpadded.utf8.count < 2 { unpadded = unpadded.dropLast() }
        }
        return Base64URL.decode(unpadded)
    }
}

/// The syntax of an RP ID: a domain name (WebAuthn L3 §4, "RP ID" is a valid domain string).
enum RelyingPartyIDSyntax {
    /// Lower-case ASCII labels of letters, digits and inner hyphens, 1–63 bytes each, 253 in all,
    /// not all digits in the last label (an IPv4 address is no RP ID here).
    static func isDomain(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard (1...253).contains(bytes.count) else { return false }
        let labels = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        for label in labels {
            guard (1...63).contains(label.count), label.first != UInt8(ascii: "-"), label.last != UInt8(ascii: "-"),
                label.allSatisfy({ isLetterOrDigit($0) || $0 == UInt8(ascii: "-") })
            else { return false }
        }
        return !(labels.last?.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } ?? true)
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
