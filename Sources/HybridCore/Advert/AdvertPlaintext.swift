/// The 16-byte plaintext of a BLE advert, one AES block (protocol.md §3.1). Chromium: the EID
/// components of `eid::FromComponents` / `eid::ToComponents`.
///
/// Layout: reserved `00` (1) || nonce (10) || routing ID (3) || tunnel-server domain ID (LE16).
/// A value of this type always has a zero reserved byte and an assigned domain ID.
package struct AdvertPlaintext: Hashable, Sendable {
    /// Size in bytes.
    package static let byteCount = 16

    /// Random per advert session.
    package let nonce: AdvertNonce
    /// The relay's routing ID for the tunnel, from `X-caBLE-Routing-ID`.
    package let routingID: RoutingID
    /// The tunnel server the client must connect to.
    package let domainID: TunnelDomainID

    /// Assembles a plaintext from its components.
    package init(nonce: AdvertNonce, routingID: RoutingID, domainID: TunnelDomainID) {
        self.nonce = nonce
        self.routingID = routingID
        self.domainID = domainID
    }

    /// Parses 16 plaintext bytes.
    ///
    /// Checks, in order: exactly 16 bytes; reserved byte 0 is `00`; the domain ID is assigned.
    ///
    /// - Throws: ``AdvertError/invalidLength(_:)``, ``AdvertError/reservedByteNonZero(_:)`` or
    ///   ``AdvertError/unassignedDomain(_:)``.
    package init(bytes: some Collection<UInt8>) throws(AdvertError) {
        let block = Array(bytes)
        guard block.count == Self.byteCount else { throw .invalidLength(block.count) }
        guard block[0] == 0 else { throw .reservedByteNonZero(block[0]) }
        let rawDomain = UInt16(block[14]) | UInt16(block[15]) << 8
        guard let domainID = TunnelDomainID(rawValue: rawDomain) else { throw .unassignedDomain(rawDomain) }
        guard let nonce = AdvertNonce(bytes: block[1..<11]), let routingID = RoutingID(bytes: block[11..<14]) else {
            preconditionFailure("fixed slices of a 16-byte block have the component sizes")
        }
        self.init(nonce: nonce, routingID: routingID, domainID: domainID)
    }

    /// The 16 plaintext bytes.
    package var bytes: [UInt8] {
        [0] + nonce.bytes + routingID.bytes
            + [UInt8(truncatingIfNeeded: domainID.rawValue), UInt8(truncatingIfNeeded: domainID.rawValue >> 8)]
    }
}
