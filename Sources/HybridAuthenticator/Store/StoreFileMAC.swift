import Crypto
import HybridCore

/// The MAC of an encrypted store file (format 2): HMAC-SHA256 under ``StoreEncryption/macKey``
/// over every byte of the JSON document as written without its `"mac"` member.
///
/// The member is appended as the exact suffix `,\n  "mac" : "<64 hex digits>"\n}\n`, so a reader
/// gets back the authenticated bytes by cutting it off, without re-encoding anything. Every field
/// (signature counters, RP IDs, user names, the scrypt parameters, fields added in later versions)
/// is therefore covered with no list to keep up to date, and any edit, even of whitespace,
/// fails. A file reformatted by another tool no longer authenticates.
enum StoreFileMAC {
    private static let domain = Array("hybrid-authenticator/v2 store MAC\n".utf8)
    private static let documentEnd = Array("\n}\n".utf8)
    private static let memberStart = Array(",\n  \"mac\" : \"".utf8)
    private static let tagHexLength = 2 * SHA256.byteCount

    /// `document` (a JSON object ending in `\n}\n`) with its `"mac"` member added last.
    static func appending(to document: [UInt8], key: SymmetricKey) -> [UInt8] {
        let tag = HMAC<SHA256>.authenticationCode(for: domain + document, using: key)
        return Array(document.dropLast(documentEnd.count)) + memberStart + Array(Hex.encode(Array(tag)).utf8)
            + Array("\"".utf8)
            + documentEnd
    }

    /// Checks the `"mac"` member that ends `file`, in constant time.
    /// - Throws: ``PasskeyStoreError/authenticationFailed`` when it is missing or wrong.
    static func verify(_ file: [UInt8], key: SymmetricKey) throws(PasskeyStoreError) {
        let memberEnd = Array("\"".utf8) + documentEnd
        let start = file.count - (memberStart.count + tagHexLength + memberEnd.count)
        guard start > 0, file[start...].starts(with: memberStart), Array(file.suffix(memberEnd.count)) == memberEnd,
            let tag = try? Hex.decode(
                String(decoding: file[(start + memberStart.count)...].prefix(tagHexLength), as: UTF8.self))
        else { throw .authenticationFailed }
        let document = Array(file[..<start]) + documentEnd
        guard HMAC<SHA256>.isValidAuthenticationCode(tag, authenticating: domain + document, using: key) else {
            throw .authenticationFailed
        }
    }
}
