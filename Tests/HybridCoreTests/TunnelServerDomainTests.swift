import TestVectorFiles
import Testing

@testable import HybridCore

@Suite struct TunnelServerDomainTests {
    @Test func sharedVectors() { VectorFiles.expectAllPass("domain.json") }

    @Test func everyUnassignedIDHasNoHost() {
        for rawID in UInt16(2)...255 { #expect(TunnelServerDomain.host(for: rawID) == nil) }
        #expect(TunnelServerDomain.host(for: 0) == "cable.ua5v.com")
    }
}
