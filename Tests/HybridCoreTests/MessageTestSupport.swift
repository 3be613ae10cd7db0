import Crypto
import HybridCore

/// Random inputs for the QR code and message tests (system randomness: the tests must pass for any).
enum MessageTestRandom {
    static func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255) } }

    static func bytes(in range: ClosedRange<Int>) -> [UInt8] { bytes(Int.random(in: range)) }

    static func secret() -> QRSecret {
        guard let secret = QRSecret(bytes: bytes(16)) else { preconditionFailure("16 bytes") }
        return secret
    }

    static func text(maxLength: Int) -> String {
        String((0..<Int.random(in: 0...maxLength)).map { _ in "aZ 9é水🔑".randomElement() ?? "a" })
    }
}
