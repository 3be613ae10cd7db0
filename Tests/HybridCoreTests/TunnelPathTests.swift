import TestVectorFiles
import Testing

@testable import HybridCore

@Suite struct TunnelPathTests {
    @Test func sharedVectors() { VectorFiles.expectAllPass("tunnelPath.json") }

    @Test func contactPaths() throws {
        #expect(
            try TunnelPath(parsing: "/cable/contact/Y29udGFjdC1pZC0wMDAx") == .contact(Array("contact-id-0001".utf8)))
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
        #expect(throws: TunnelPathError.invalidTunnelID) {
            try TunnelPath(parsing: "/cable/connect/123456/%41\(id.dropFirst(3))")
        }
    }
}
