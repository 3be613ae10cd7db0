/// The browser's "may this origin use this RP ID" decision (WebAuthn L3 §5.1.3 steps 7–8 and §5.1.4.1
/// steps 6–7, HTML "is a registrable domain suffix of or is equal to").
package enum RelyingPartyIDCheck {
    /// The RP ID to use for a request from `origin`.
    ///
    /// - Parameters:
    ///   - requested: The RP's `rp.id` / `rpId`, or `nil` to use the origin's host.
    ///   - origin: The caller's origin.
    /// - Returns: The RP ID (the origin's host when `requested` is `nil`).
    /// - Throws: ``OriginError`` when the RP ID is malformed, a public suffix, or not the host or a
    ///   registrable suffix of it (Public Suffix List rules, through libpsl). An IP-address host only
    ///   matches itself; `localhost` is claimable from `localhost` and its subdomains.
    package static func effectiveRPID(requested: String?, origin: WebOrigin) throws(OriginError) -> String {
        let host = origin.host
        guard let rpID = requested else {
            if case .domain(let name) = host, name != "localhost", PublicSuffixList.isPublicSuffix(name) {
                throw .rpIDIsPublicSuffix(name)
            }
            return host.bareName
        }
        switch host {
        case .ipv4(let address), .ipv6(let address):
            guard rpID == address else {
                if !DomainName.isValid(rpID), WebHost.ipv4(rpID) == nil, WebHost.ipv6(rpID) == nil {
                    throw .malformedRPID(rpID)
                }
                throw .rpIDNotAllowedForOrigin(rpID: rpID, host: address)
            }
            return rpID
        case .domain(let hostName):
            if WebHost.ipv4(rpID) != nil || WebHost.ipv6(rpID) != nil {
                throw .rpIDNotAllowedForOrigin(rpID: rpID, host: hostName)
            }
            guard DomainName.isValid(rpID), !DomainName.endsInNumber(rpID) else { throw .malformedRPID(rpID) }
            guard DomainName.host(hostName, isOrEndsWith: rpID) else {
                throw .rpIDNotAllowedForOrigin(rpID: rpID, host: hostName)
            }
            if rpID == "localhost" { return rpID }
            // HTML's "registrable domain suffix": the RP ID is not a public suffix and does not reach
            // into the host's public suffix (e.g. "io" or "github.io" for "me.github.io"), i.e. it has
            // the host's registrable domain.
            guard let registrable = PublicSuffixList.registrableDomain(of: rpID),
                registrable == PublicSuffixList.registrableDomain(of: hostName)
            else { throw .rpIDIsPublicSuffix(rpID) }
            return rpID
        }
    }
}
