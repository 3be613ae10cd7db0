import Crypto
import Foundation
import HybridCore

#if canImport(Glibc)
    import Glibc
#endif

/// CPU time of one KNpsk0 handshake per side (fresh ephemeral key included, made as the roles
/// make it) and of the raw P-256 operations each side needs: one key generation (the same way),
/// two ECDH (ee and se), one point decoding (the peer's ephemeral key).
struct HandshakeBenchmark {
    let iterations: Int

    struct Result {
        /// Microseconds of thread CPU time per operation.
        var initiator: Double
        var responder: Double
        var keyGeneration: Double
        var ecdh: Double
        var pointDecode: Double
        /// Serializing a public key (`x963Representation`): each side does it twice (the static and
        /// its ephemeral key, into the Noise hash); not a P-256 operation, swift-crypto's cost.
        var pointEncode: Double
        var rawPerSide: Double { keyGeneration + 2 * ecdh + pointDecode }
    }

    func run() -> Result {
        let identity = Self.freshKey()
        guard let psk = PSK(bytes: [UInt8](repeating: 7, count: PSK.byteCount)) else { preconditionFailure() }
        // Real handshakes; each side's share of the CPU time is clocked separately.
        var initiatorTime = 0.0
        var responderTime = 0.0
        for round in 0..<(iterations + iterations / 10) {
            let t0 = threadCPUTime()
            let initiator = HandshakeInitiator(
                pattern: .knpsk0(identityKey: identity), psk: psk, ephemeralKey: Self.freshKey())
            let message1 = initiator.makeMessage1()
            let t1 = threadCPUTime()
            guard
                let (message2, _) = try? HandshakeResponder.respond(
                    to: message1, pattern: .knpsk0(initiatorStaticKey: identity.publicKey), psk: psk,
                    ephemeralKey: Self.freshKey())
            else { preconditionFailure("responder failed") }
            let t2 = threadCPUTime()
            guard (try? initiator.processMessage2(message2)) != nil else { preconditionFailure("initiator failed") }
            let t3 = threadCPUTime()
            guard round >= iterations / 10 else { continue }  // warm-up
            initiatorTime += (t1 - t0) + (t3 - t2)
            responderTime += t2 - t1
        }
        let initiator = initiatorTime / Double(iterations) * 1e6
        let responder = responderTime / Double(iterations) * 1e6
        let peer = Self.freshKey().publicKey
        let encodedPeer = peer.x963Representation
        let keyGeneration = measure { _ = Self.freshKey() }
        let ecdh = measure { _ = try? identity.sharedSecretFromKeyAgreement(with: peer) }
        let pointDecode = measure { _ = try? P256.KeyAgreement.PublicKey(x963Representation: encodedPeer) }
        let pointEncode = measure { _ = peer.x963Representation }
        return Result(
            initiator: initiator, responder: responder, keyGeneration: keyGeneration, ecdh: ecdh,
            pointDecode: pointDecode, pointEncode: pointEncode)
    }

    /// A key as the roles make their ephemeral keys: a random scalar (no FIPS pairwise test).
    private static func freshKey() -> P256.KeyAgreement.PrivateKey {
        let key = P256.KeyAgreement.PrivateKey(scalarFrom: { count in
            SymmetricKey(size: SymmetricKeySize(bitCount: count * 8)).withUnsafeBytes { Array($0) }
        })
        guard let key else { preconditionFailure("the system generator gives valid scalars") }
        return key
    }

    /// Microseconds of this thread's CPU time per call of `body`.
    private func measure(_ body: () -> Void) -> Double {
        for _ in 0..<max(iterations / 20, 10) { body() }
        let start = threadCPUTime()
        for _ in 0..<iterations { body() }
        return (threadCPUTime() - start) / Double(iterations) * 1e6
    }

    private func threadCPUTime() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
