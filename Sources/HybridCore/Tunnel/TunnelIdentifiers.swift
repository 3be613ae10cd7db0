/// The 16-byte tunnel ID that names a tunnel on a relay (`/cable/new/<tunnel ID>`).
///
/// In the QR flow both sides derive it from the QR secret (``KeyPurpose/tunnelID``).
/// Chromium: `tunnel_id`.
package struct TunnelID: Hashable, Sendable, CustomStringConvertible {
    /// Size in bytes.
    package static let byteCount = 16
    /// The raw bytes, always ``byteCount`` long.
    package let bytes: [UInt8]

    /// Wraps `bytes`, or returns `nil` unless they are exactly 16 bytes long.
    package init?(bytes: some Collection<UInt8>) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = Array(bytes)
    }

    /// Upper-case hex, as Chromium writes it in URLs.
    package var hex: String { Hex.encode(bytes, uppercase: true) }

    /// A short, non-identifying prefix for logs: the first 2 bytes only.
    package var description: String { "TunnelID(\(Hex.encode(bytes.prefix(2)))…)" }
}

/// The 3-byte routing ID a relay assigns to a new tunnel (`X-caBLE-Routing-ID`), carried in the
/// advert so the client can reach the same relay instance.
public struct RoutingID: Hashable, Sendable, CustomStringConvertible {
    /// Size in bytes.
    package static let byteCount = 3
    /// The raw bytes, always `byteCount` long.
    public let bytes: [UInt8]

    /// Wraps `bytes`, or returns `nil` unless they are exactly 3 bytes long.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = Array(bytes)
    }

    /// Parses exactly 6 hex digits in either case (the `X-caBLE-Routing-ID` header value).
    package init?(hex: some StringProtocol) {
        guard hex.utf8.count == 2 * Self.byteCount, let bytes = try? Hex.decode(hex) else { return nil }
        self.bytes = bytes
    }

    /// Upper-case hex, as Chromium writes it in URLs and headers.
    package var hex: String { Hex.encode(bytes, uppercase: true) }

    /// The ID in hex, for logs.
    public var description: String { "RoutingID(\(Hex.encode(bytes)))" }
}

/// A tunnel-server domain ID as carried in bytes 14–15 of the advert (LE16).
///
/// IDs 0 and 1 are assigned (`cable.ua5v.com`, `cable.auth.com`), 2–255 are reserved and invalid,
/// and 256–65535 name a hashed domain (protocol.md §4).
public struct TunnelDomainID: Hashable, Sendable, CustomStringConvertible {
    /// Number of assigned domain IDs this implementation knows (QR key 2).
    package static let assignedCount: UInt16 = 2
    /// The first hashed domain ID.
    package static let firstHashed: UInt16 = 256

    /// The raw 16-bit value.
    public let rawValue: UInt16

    /// Wraps `rawValue`, or returns `nil` for the unassigned IDs 2–255.
    public init?(rawValue: UInt16) {
        guard rawValue < Self.assignedCount || rawValue >= Self.firstHashed else { return nil }
        self.rawValue = rawValue
    }

    /// Google's tunnel service, `cable.ua5v.com`.
    public static let google = TunnelDomainID(uncheckedRawValue: 0)
    /// Apple's tunnel service, `cable.auth.com`.
    public static let apple = TunnelDomainID(uncheckedRawValue: 1)

    private init(uncheckedRawValue: UInt16) { self.rawValue = uncheckedRawValue }

    /// Whether this ID names a hashed domain (≥ 256) rather than an assigned one.
    package var isHashed: Bool { rawValue >= Self.firstHashed }

    /// `domain N`, for logs.
    public var description: String { "domain \(rawValue)" }
}
