extension TransportCrypter {
    /// Decrypts one tunnel message for a session, mapping failures to ``SessionError``.
    mutating func sessionDecrypt(_ message: [UInt8]) throws(SessionError) -> [UInt8] {
        do {
            return try decrypt(message)
        } catch {
            throw .transport(error)
        }
    }

    /// Decrypts one tunnel message and splits it into a frame of `revision`.
    mutating func sessionDecryptFrame(_ message: [UInt8], revision: HybridProtocolRevision) throws(SessionError) -> HybridFrame {
        let plaintext = try sessionDecrypt(message)
        do throws(HybridMessageError) {
            return try HybridFrame(decoding: plaintext, revision: revision)
        } catch {
            throw .invalidFrame(.frame(error))
        }
    }
}
