import Testing
@testable import HybridCore

struct TunnelPathVector: Decodable, Sendable, CustomTestStringConvertible {
    let name: String
    let valid: Bool
    let path: String
    let error: String?
    let endpoint: String?
    let routingID: String?
    let tunnelID: String?
    let canonicalPath: String?
    var testDescription: String { name }
}

@Suite struct TunnelPathTests {
    static let vectors: [TunnelPathVector] = (try? TunnelVectorFiles.load("tunnelPath")) ?? []

    @Test func vectorFileLoads() throws {
        let cases: [TunnelPathVector] = try TunnelVectorFiles.load("tunnelPath")
        #expect(cases.count >= 24)
        #expect(cases.contains { !$0.valid } && cases.contains { $0.valid })
    }

    @Test(arguments: vectors)
    func pathVector(_ vector: TunnelPathVector) throws {
        guard vector.valid else {
            #expect(vector.error == "path")
            #expect(throws: TunnelPathError.self) { try TunnelPath(parsing: vector.path) }
            return
        }
        let parsed = try TunnelPath(parsing: vector.path)
        let tunnelHex = try #require(vector.tunnelID)
        let tunnelID = try #require(TunnelID(bytes: try TunnelVectorFiles.bytes(tunnelHex)))
        switch vector.endpoint {
        case "new":
            #expect(vector.routingID == nil)
            #expect(parsed == .new(tunnelID))
        case "connect":
            let routingHex = try #require(vector.routingID)
            let routingID = try #require(RoutingID(bytes: try TunnelVectorFiles.bytes(routingHex)))
            #expect(parsed == .connect(routingID, tunnelID))
        default:
            Issue.record("unknown endpoint \(vector.endpoint ?? "nil")")
        }
        #expect(parsed.canonicalPath == vector.canonicalPath)
    }

    @Test func contactPaths() throws {
        #expect(try TunnelPath(parsing: "/cable/contact/Y29udGFjdC1pZC0wMDAx") == .contact(Array("contact-id-0001".utf8)))
        #expect(throws: TunnelPathError.invalidContactID) { try TunnelPath(parsing: "/cable/contact/") }
        #expect(throws: TunnelPathError.invalidContactID) { try TunnelPath(parsing: "/cable/contact/Zg==") }
        #expect(throws: TunnelPathError.wrongSegmentCount) { try TunnelPath(parsing: "/cable/contact/Zg/") }
    }

    @Test func specificErrors() {
        let id = String(repeating: "ab", count: 16)
        #expect(throws: TunnelPathError.tooLong) {
            try TunnelPath(parsing: "/cable/new/" + String(repeating: "a", count: TunnelPath.maxLength))
        }
        #expect(throws: TunnelPathError.notTunnelPath) { try TunnelPath(parsing: "/cable/old/\(id)") }
        #expect(throws: TunnelPathError.notTunnelPath) { try TunnelPath(parsing: "/CABLE/new/\(id)") }
        #expect(throws: TunnelPathError.wrongSegmentCount) { try TunnelPath(parsing: "/cable/new/\(id)/") }
        #expect(throws: TunnelPathError.invalidTunnelID) { try TunnelPath(parsing: "/cable/new/\(id)?x=1") }
        #expect(throws: TunnelPathError.invalidRoutingID) { try TunnelPath(parsing: "/cable/connect/+1234/\(id)") }
        #expect(throws: TunnelPathError.invalidTunnelID) { try TunnelPath(parsing: "/cable/connect/123456/%41\(id.dropFirst(3))") }
    }
}
