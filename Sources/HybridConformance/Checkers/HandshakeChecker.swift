import Crypto
import HybridCore

/// `handshake` (SCHEMA.md §4.21): Noise KNpsk0 / NKpsk0 with pinned ephemeral keys, both roles.
struct HandshakeChecker: VectorKindChecker {
    let kind = "handshake"

    func check(_ testCase: VectorCase) throws(VectorMismatch) {
        let isKN: Bool
        switch try testCase.string("pattern") {
        case "KNpsk0": isKN = true
        case "NKpsk0": isKN = false
        case let other: throw VectorMismatch("unknown pattern \(other)")
        }
        try Expect.equal("prologue", try testCase.string("prologue"), isKN ? "01" : "00")
        try checkKeyConsistency(testCase)
        let psk = try pskChecked(testCase)

        guard testCase.valid else {
            switch try testCase.string("role") {
            case "responder":
                let pattern = try responderPattern(testCase, isKN: isKN)
                let ephemeral = try testCase.privateKey("responderEphemeralPrivate")
                let message1 = try testCase.bytes("msg1")
                try Expect.failure(testCase, "respond", classify: vectorErrorClass(of:)) {
                    _ = try HandshakeResponder.respond(
                        to: message1,
                        pattern: pattern,
                        psk: psk,
                        ephemeralKey: ephemeral
                    )
                }
            case "initiator":
                let initiator = try makeInitiator(testCase, isKN: isKN, psk: psk)
                try Expect.bytes("msg1", initiator.makeMessage1(), try testCase.bytes("msg1"))
                let message2 = try testCase.bytes("msg2")
                try Expect.failure(testCase, "processMessage2", classify: vectorErrorClass(of:)) {
                    _ = try initiator.processMessage2(message2)
                }
            case let other:
                throw VectorMismatch("unknown role \(other)")
            }
            return
        }

        let initiator = try makeInitiator(testCase, isKN: isKN, psk: psk)
        let message1 = initiator.makeMessage1()
        try Expect.bytes("msg1", message1, try testCase.bytes("msg1"))
        let message2 = try testCase.bytes("msg2")

        if testCase.has("responderEphemeralPrivate") && (isKN || testCase.has("responderStaticPrivate")) {
            let pattern = try responderPattern(testCase, isKN: isKN)
            let ephemeral = try testCase.privateKey("responderEphemeralPrivate")
            let (built, result) = try Expect.success("respond", classify: vectorErrorClass(of:)) {
                try HandshakeResponder.respond(to: message1, pattern: pattern, psk: psk, ephemeralKey: ephemeral)
            }
            try Expect.bytes("msg2", built, message2)
            try expectResult(result, testCase, side: "responder")
        }

        let result = try Expect.success("processMessage2", classify: vectorErrorClass(of:)) {
            try initiator.processMessage2(message2)
        }
        try expectResult(result, testCase, side: "initiator")
    }

    private func makeInitiator(_ testCase: VectorCase, isKN: Bool, psk: PSK) throws(VectorMismatch)
        -> HandshakeInitiator
    {
        let pattern: HandshakeInitiator.Pattern =
            isKN
            ? .knpsk0(identityKey: try testCase.privateKey("initiatorStaticPrivate"))
            : .nkpsk0(responderStaticKey: try testCase.publicKey("responderStaticPublic"))
        try Expect.equal("protocolName", pattern.protocolName, try testCase.string("protocolName"))
        return HandshakeInitiator(
            pattern: pattern,
            psk: psk,
            ephemeralKey: try testCase.privateKey("initiatorEphemeralPrivate")
        )
    }

    private func responderPattern(_ testCase: VectorCase, isKN: Bool) throws(VectorMismatch)
        -> HandshakeResponder.Pattern
    {
        let pattern: HandshakeResponder.Pattern =
            isKN
            ? .knpsk0(initiatorStaticKey: try testCase.publicKey("initiatorStaticPublic"))
            : .nkpsk0(staticKey: try testCase.privateKey("responderStaticPrivate"))
        try Expect.equal("protocolName", pattern.protocolName, try testCase.string("protocolName"))
        return pattern
    }

    private func expectResult(_ result: HandshakeResult, _ testCase: VectorCase, side: String) throws(VectorMismatch) {
        try Expect.bytes("handshakeHash (\(side))", result.handshakeHash, try testCase.bytes("handshakeHash"))
        try Expect.bytes(
            "initiatorToResponderKey (\(side))",
            result.initiatorToResponderKey.vectorBytes,
            try testCase.bytes("initiatorToResponderKey")
        )
        try Expect.bytes(
            "responderToInitiatorKey (\(side))",
            result.responderToInitiatorKey.vectorBytes,
            try testCase.bytes("responderToInitiatorKey")
        )
    }

    /// The PSK, checked against its derivation when the case gives the secret and EID plaintext.
    private func pskChecked(_ testCase: VectorCase) throws(VectorMismatch) -> PSK {
        guard let psk = PSK(bytes: try testCase.bytes("psk")) else { throw VectorMismatch("psk is not 32 bytes") }
        guard let plaintextBytes = try testCase.optionalBytes("eidPlaintext") else { return psk }
        let plaintext = try Expect.success("eidPlaintext", classify: vectorErrorClass(of:)) {
            try AdvertPlaintext(bytes: plaintextBytes)
        }
        if let secretBytes = try testCase.optionalBytes("qrSecret") {
            guard let secret = QRSecret(bytes: secretBytes) else { throw VectorMismatch("qrSecret is not 16 bytes") }
            try Expect.bytes("psk from qrSecret", secret.psk(eidPlaintext: plaintext).bytes, psk.bytes)
        }
        if let linkSecret = try testCase.optionalBytes("linkSecret") {
            try Expect.bytes("psk from linkSecret", PSK(deriving: linkSecret, eidPlaintext: plaintext).bytes, psk.bytes)
        }
        return psk
    }

    private func checkKeyConsistency(_ testCase: VectorCase) throws(VectorMismatch) {
        for role in ["initiatorStatic", "responderStatic", "initiatorEphemeral", "responderEphemeral"] {
            try testCase.expectKeyPair(private: role + "Private", public: role + "Public")
        }
    }
}
