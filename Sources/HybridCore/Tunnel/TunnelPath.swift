/// A tunnel-service request path (protocol.md §5.1), as built by peers and parsed by relays.
///
/// Chromium: `tunnelserver::GetNewTunnelURL` / `GetConnectURL` / `GetContactURL` (path part).
///
/// Parsing is strict and works on the raw request path: `/cable/new/<32 hex>`,
/// `/cable/connect/<6 hex>/<32 hex>` (hex in either case) or `/cable/contact/<base64url>`, with
/// nothing before or after. No percent-decoding, no dot-segment removal, no trailing slash, no
/// query: a relay that wants to tolerate a query string splits it off before calling
/// ``init(parsing:)`` (``TunnelRelay`` does, and ignores it).
package enum TunnelPath: Hashable, Sendable {
    /// `/cable/new/<tunnel ID>`: the authenticator registers a tunnel.
    case new(TunnelID)
    /// `/cable/connect/<routing ID>/<tunnel ID>`: the client (or a woken phone) joins a tunnel.
    case connect(RoutingID, TunnelID)
    /// `/cable/contact/<base64url(contact ID)>`: the client asks the relay to wake a linked phone.
    case contact([UInt8])

    /// The longest path ``init(parsing:)`` looks at, in UTF-8 bytes.
    package static let maxLength = 1024

    /// Parses a request path. Throws ``TunnelPathError`` for anything but the three exact forms.
    package init(parsing path: some StringProtocol) throws(TunnelPathError) {
        let utf8 = Array(path.utf8)
        guard utf8.count <= Self.maxLength else { throw .tooLong }
        let segments = utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        // A leading "/" gives an empty first segment: ["", "cable", endpoint, ...].
        guard segments.count >= 3, segments[0].isEmpty, segments[1].elementsEqual("cable".utf8) else {
            throw .notTunnelPath
        }
        let endpoint = segments[2]
        let arguments = segments.dropFirst(3)
        if endpoint.elementsEqual("new".utf8) {
            guard arguments.count == 1, let first = arguments.first else { throw .wrongSegmentCount }
            self = .new(try Self.tunnelID(first))
        } else if endpoint.elementsEqual("connect".utf8) {
            guard arguments.count == 2, let first = arguments.first, let last = arguments.last else {
                throw .wrongSegmentCount
            }
            let routingText = String(decoding: first, as: UTF8.self)
            guard let routingID = RoutingID(hex: routingText) else { throw .invalidRoutingID }
            self = .connect(routingID, try Self.tunnelID(last))
        } else if endpoint.elementsEqual("contact".utf8) {
            guard arguments.count == 1, let first = arguments.first else { throw .wrongSegmentCount }
            guard !first.isEmpty, let contactID = Base64URL.decode(String(decoding: first, as: UTF8.self)) else {
                throw .invalidContactID
            }
            self = .contact(contactID)
        } else {
            throw .notTunnelPath
        }
    }

    /// The path as Chromium writes it: upper-case hex, unpadded base64url.
    package var canonicalPath: String {
        switch self {
        case .new(let tunnelID): "/cable/new/" + tunnelID.hex
        case .connect(let routingID, let tunnelID): "/cable/connect/" + routingID.hex + "/" + tunnelID.hex
        case .contact(let contactID): "/cable/contact/" + Base64URL.encode(contactID)
        }
    }

    private static func tunnelID(_ segment: ArraySlice<UInt8>) throws(TunnelPathError) -> TunnelID {
        guard segment.count == 2 * TunnelID.byteCount,
            let bytes = try? Hex.decode(String(decoding: segment, as: UTF8.self)),
            let tunnelID = TunnelID(bytes: bytes)
        else { throw .invalidTunnelID }
        return tunnelID
    }
}

/// Why a request path is not a tunnel-service path (vector error class `path`).
package enum TunnelPathError: Error, Equatable, Sendable {
    /// Longer than ``TunnelPath/maxLength``.
    case tooLong
    /// Does not start with `/cable/new/`, `/cable/connect/` or `/cable/contact/`.
    case notTunnelPath
    /// Too few or too many `/`-separated segments after the endpoint (includes a trailing slash).
    case wrongSegmentCount
    /// The tunnel-ID segment is not exactly 32 hex digits.
    case invalidTunnelID
    /// The routing-ID segment is not exactly 6 hex digits.
    case invalidRoutingID
    /// The contact-ID segment is empty or not canonical unpadded base64url.
    case invalidContactID
}
