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
    mutating func sessionDecryptFrame(_ message: [UInt8], revision: HybridProtocolRevision) throws(SessionError)
        -> HybridFrame
    {
        var padded: [UInt8]?
        return try sessionDecryptFrame(message, revision: revision, padded: &padded)
    }

    /// ``sessionDecryptFrame(_:revision:)`` that also hands out the padded plaintext once it
    /// authenticated, even if the padding or the frame then fails.
    mutating func sessionDecryptFrame(
        _ message: [UInt8], revision: HybridProtocolRevision, padded: inout [UInt8]?
    ) throws(SessionError) -> HybridFrame {
        let plaintext: [UInt8]
        do {
            let opened = try decryptPadded(message)
            padded = opened
            plaintext = try TransportPadding.unpad(opened)
        } catch {
            throw .transport(error)
        }
        do throws(HybridMessageError) {
            return try HybridFrame(decoding: plaintext, revision: revision)
        } catch {
            throw .invalidFrame(.frame(error))
        }
    }
}
