import HybridCore

/// `domain` (SCHEMA.md §4.8): domain ID → tunnel host, `null` for the unassigned IDs.
struct DomainChecker: VectorKindChecker {
    let kind = "domain"
    let definesInvalidCases = false

    func check(_ testCase: VectorCase) throws(VectorMismatch) {
        let id = try testCase.int("domainID")
        guard let rawID = UInt16(exactly: id) else { throw VectorMismatch("domainID \(id) is not 16-bit") }
        try Expect.equal(
            "host", TunnelServerDomain.host(for: rawID), try testCase.optionalString("host"),
            show: { $0 ?? "null" })
    }
}

/// `tunnelURL` (SCHEMA.md §4.9): `/cable/new`, `/cable/connect` and `/cable/contact` URLs.
struct TunnelURLChecker: VectorKindChecker {
    let kind = "tunnelURL"
    let definesInvalidCases = false

    func check(_ testCase: VectorCase) throws(VectorMismatch) {
        let rawDomain = try testCase.int("domainID")
        guard let domain = UInt16(exactly: rawDomain).flatMap(TunnelDomainID.init(rawValue:)) else {
            throw VectorMismatch("domainID \(rawDomain) is not a valid domain")
        }
        let tunnelID = try testCase.optionalBytes("tunnelID").map { bytes throws(VectorMismatch) in
            guard let id = TunnelID(bytes: bytes) else { throw VectorMismatch("tunnelID is not 16 bytes") }
            return id
        }
        let routingID = try testCase.optionalBytes("routingID").map { bytes throws(VectorMismatch) in
            guard let id = RoutingID(bytes: bytes) else { throw VectorMismatch("routingID is not 3 bytes") }
            return id
        }
        let contactID = try testCase.optionalBytes("contactID")

        let newURL = tunnelID.map { TunnelURL.new(domain: domain, tunnelID: $0).description }
        let connectURL = tunnelID.flatMap { tunnel in
            routingID.map { TunnelURL.connect(domain: domain, routingID: $0, tunnelID: tunnel).description }
        }
        let contactURL = contactID.map { TunnelURL.contact(domain: domain, contactID: $0).description }
        let show: (String?) -> String = { $0 ?? "absent" }
        try Expect.equal("newURL", newURL, try testCase.optionalString("newURL"), show: show)
        try Expect.equal("connectURL", connectURL, try testCase.optionalString("connectURL"), show: show)
        try Expect.equal("contactURL", contactURL, try testCase.optionalString("contactURL"), show: show)
    }
}

/// `tunnelPath` (SCHEMA.md §4.10): request paths a tunnel server accepts.
struct TunnelPathChecker: VectorKindChecker {
    let kind = "tunnelPath"

    func check(_ testCase: VectorCase) throws(VectorMismatch) {
        let path = try testCase.string("path")
        guard testCase.valid else {
            try Expect.failure(testCase, "parse", classify: vectorErrorClass) { _ = try TunnelPath(parsing: path) }
            return
        }
        let parsed = try Expect.success("parse", classify: vectorErrorClass) { try TunnelPath(parsing: path) }
        let tunnelID = try testCase.bytes("tunnelID")
        let routingID = try testCase.optionalBytes("routingID")
        switch parsed {
        case .new(let tunnel):
            try Expect.equal("endpoint", "new", try testCase.string("endpoint"))
            try Expect.bytes("tunnelID", tunnel.bytes, tunnelID)
            try Expect.equal("routingID", nil, routingID, show: { $0.map { Hex.encode($0) } ?? "null" })
        case .connect(let routing, let tunnel):
            try Expect.equal("endpoint", "connect", try testCase.string("endpoint"))
            try Expect.bytes("tunnelID", tunnel.bytes, tunnelID)
            try Expect.bytes("routingID", routing.bytes, routingID ?? [])
        case .contact:
            throw VectorMismatch("parsed as a contact path")
        }
        try Expect.equal("canonicalPath", parsed.canonicalPath, try testCase.string("canonicalPath"))
    }
}
