import Testing
@testable import HybridCore

struct DomainVector: Decodable, Sendable, CustomTestStringConvertible {
    let name: String
    let valid: Bool
    let domainID: Int
    let host: String?
    var testDescription: String { name }
}

@Suite struct TunnelServerDomainTests {
    static let vectors: [DomainVector] = (try? TunnelVectorFiles.load("domain")) ?? []

    @Test func vectorFileLoads() throws {
        let cases: [DomainVector] = try TunnelVectorFiles.load("domain")
        #expect(cases.count >= 12)
    }

    @Test(arguments: vectors)
    func domainVector(_ vector: DomainVector) throws {
        #expect(vector.valid)
        let rawID = try #require(UInt16(exactly: vector.domainID))
        #expect(TunnelServerDomain.host(for: rawID) == vector.host)
        #expect((TunnelDomainID(rawValue: rawID) == nil) == (vector.host == nil))
        if let id = TunnelDomainID(rawValue: rawID) {
            #expect(id.host == vector.host)
        }
    }

    @Test func everyUnassignedIDHasNoHost() {
        for rawID in UInt16(2)...255 { #expect(TunnelServerDomain.host(for: rawID) == nil) }
        #expect(TunnelServerDomain.host(for: 0) == "cable.ua5v.com")
    }
}
