import Foundation
import Testing

@testable import HybridPresentation

/// A killed key leaves `hybrid-security-key-qr-PID.png` behind; the next start removes the images
/// of processes that no longer run, and nothing else.
@Suite struct StaleQRImagesTests {
    let prefix = "hybrid-security-key-qr-"

    @Test func onlyImagesOfProcessesThatNoLongerRunAreStale() {
        let names = [
            "hybrid-security-key-qr-100.png",  // dead
            "hybrid-security-key-qr-200.png",  // running
            "hybrid-security-key-qr-.png", "hybrid-security-key-qr-12a.png", "hybrid-security-key-qr--5.png",
            "hybrid-security-key-qr-300.svg", "hybrid-client-qr-100.png", "notes.txt",
        ]
        #expect(StaleQRImages.stale(names, prefix: prefix) { $0 == 200 } == ["hybrid-security-key-qr-100.png"])
    }

    @Test func theImageOfThisProcessIsNeverStale() {
        let mine = "hybrid-security-key-qr-\(getpid()).png"
        #expect(StaleQRImages.stale([mine], prefix: prefix) { $0 == getpid() }.isEmpty)
    }
}
