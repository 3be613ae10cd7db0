import TestVectorFiles
import Testing

@Suite struct RPIDHashTests {
    @Test func sharedVectors() { VectorFiles.expectAllPass("rpIdHash.json") }
}
