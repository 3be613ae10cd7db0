import HybridClient
import HybridCore
import HybridPresentation
import Testing

@testable import HybridQRWindow

/// What the QR window says and draws, without a display: the texts (the relying party in the
/// heading and title; the code gone once the phone is found), and the pixels (quiet zone,
/// whole-pixel modules, size for scanning at arm's length).
@Suite struct QRWindowTextTests {
    @Test func headingAndTitleNameTheRelyingParty() {
        let signIn = QRWindowText(operation: .signIn, rpID: "github.com")
        #expect(signIn.heading == "Sign in to github.com")
        #expect(signIn.title == "Security key: github.com")
        #expect(QRWindowText(operation: .register, rpID: "example.com").heading == "Create a passkey for example.com")
        // OpenSSH's default application string (ssh-keygen -O application=…, default "ssh:").
        #expect(QRWindowText(operation: .register, rpID: "ssh:").heading == "Create an ssh key (ssh:)")
        #expect(QRWindowText(operation: .signIn, rpID: "ssh:").heading == "Use your ssh key (ssh:)")
    }

    /// The line above the code is the qr event's sentence in docs/client.md ("Events"), as the
    /// terminal says it; the state under it waits for the phone.
    @Test func theHintIsWordedAsEveryProgramWordsIt() {
        let text = QRWindowText(operation: .signIn, rpID: "github.com")
        #expect(text.hint == "Scan this QR code with your phone's camera")
        #expect(text.initialState == "Waiting for your phone…")
    }

    @Test func theCodeDisappearsOnceThePhoneIsFound() {
        #expect(QRWindowText.state(for: .qr(url: "FIDO:/1")) == nil)
        #expect(QRWindowText.state(for: .connecting(domain: .google, host: "x"))?.hideQR == true)
        #expect(QRWindowText.state(for: .waitingForApproval)?.text == "Approve on your phone…")
        // The window says what every program says for the event (docs/client.md, "Events").
        #expect(
            QRWindowText.state(for: .advertForAnotherQRCode)?.text
                == "A phone is advertising for another QR code (an older one?); scan the one shown now")
        #expect(QRWindowText.state(for: .lingering(limit: .seconds(1)))?.text == "Done")
    }

    @Test func pixelsHaveAQuietZoneAndWholeModules() throws {
        let matrix = try QRCodeMatrix(encoding: "FIDO:/123456789012345678901234567890")
        let pixels = QRPixels(matrix: matrix)
        let modules = matrix.size + 8
        #expect(pixels.side % modules == 0)
        #expect(pixels.side >= 300 && pixels.side <= QRPixels.targetSide)
        let scale = pixels.side / modules
        func dark(_ x: Int, _ y: Int) -> Bool { pixels.rgb[(y * pixels.side + x) * 3] == 0 }
        // The 4-module border is white all round.
        for i in 0..<pixels.side {
            for j in 0..<(4 * scale) {
                #expect(!dark(i, j) && !dark(j, i) && !dark(i, pixels.side - 1 - j) && !dark(pixels.side - 1 - j, i))
            }
        }
        // The finder pattern's top-left module (ISO/IEC 18004 §6.3.3) is dark at (4, 4).
        #expect(dark(4 * scale, 4 * scale) && dark(5 * scale - 1, 5 * scale - 1))
        #expect(pixels.rgb.count == pixels.side * pixels.side * 3)
    }
}
