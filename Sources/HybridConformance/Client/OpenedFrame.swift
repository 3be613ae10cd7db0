import HybridCore

/// A decrypted frame with its padding still on.
package struct OpenedFrame: Sendable, Equatable {
    /// The authenticator's write sequence number it was opened with.
    package let sequence: UInt32
    /// The plaintext before unpadding.
    package let padded: [UInt8]
    /// The crypter construction that opened it.
    package let construction: TransportCrypter.Construction

    package init(sequence: UInt32, padded: [UInt8], construction: TransportCrypter.Construction) {
        self.sequence = sequence
        self.padded = padded
        self.construction = construction
    }

    /// The message without its padding, or `nil` if the padding cannot be stripped.
    package var message: [UInt8]? { try? TransportPadding.unpad(padded) }

    /// What is wrong with the padding's length, or `nil`: the padded length must be the smallest
    /// multiple of 32 that holds the message and the count byte (count 0–31, protocol.md §7.1).
    package var paddingLengthProblem: String? {
        guard let count = padded.last else { return "seq \(sequence): empty plaintext" }
        if padded.count % TransportPadding.granularity != 0 {
            return "seq \(sequence): \(padded.count) padded bytes, not a multiple of 32"
        }
        if Int(count) >= TransportPadding.granularity || Int(count) + 1 > padded.count {
            return "seq \(sequence): count byte \(count) in \(padded.count) bytes (at most 31)"
        }
        return nil
    }

    /// Whether the bytes the count byte covers are all zero.
    package var paddingIsZero: Bool {
        guard let count = padded.last, Int(count) + 1 <= padded.count else { return false }
        return padded[(padded.count - Int(count) - 1)..<(padded.count - 1)].allSatisfy { $0 == 0 }
    }
}
