import Crypto
import HybridCore

/// `linking` (SCHEMA.md §4.19): the linking-info map → fields, with the signature check.
struct LinkingChecker: VectorKindChecker {
    let kind = "linking"

    func check(_ testCase: VectorCase) throws(VectorMismatch) {
        if let seed = try testCase.optionalBytes("clientIdentitySeed") {
            try Expect.bytes(
                "clientIdentityPrivateKey from seed", IdentityKeyDerivation.privateScalar(fromSeed: seed),
                try testCase.bytes("clientIdentityPrivateKey")
            )
        }
        try testCase.expectKeyPair(private: "clientIdentityPrivateKey", public: "clientIdentityPublicKey")
        let clientKey = try testCase.privateKey("clientIdentityPrivateKey")
        let handshakeHash = try testCase.bytes("handshakeHash")
        let linkingMap = try testCase.bytes("linkingMap")

        let parseAndVerify = { () throws -> LinkingInfo in
            let info = try LinkingInfo(cbor: linkingMap)
            try info.verifySignature(clientIdentityKey: clientKey, handshakeHash: handshakeHash)
            return info
        }
        guard testCase.valid else {
            try Expect.failure(testCase, "parse and verify", classify: vectorErrorClass(of:)) {
                _ = try parseAndVerify()
            }
            return
        }
        let info = try Expect.success("parse and verify", classify: vectorErrorClass(of:), parseAndVerify)
        try Expect.bytes("contactID", info.contactID, try testCase.bytes("contactID"))
        try Expect.bytes("pairingID", info.pairingID, try testCase.bytes("pairingID"))
        try Expect.bytes("linkSecret", info.linkSecret, try testCase.bytes("linkSecret"))
        try Expect.bytes(
            "authenticatorPublicKey", info.authenticatorPublicKeyBytes, try testCase.bytes("authenticatorPublicKey"))
        try Expect.equal("phoneName", info.phoneName, try testCase.string("phoneName"))
        try Expect.bytes("signature", info.signature, try testCase.bytes("signature"))
        try Expect.equal("playServicesTag", info.playServicesTag, try testCase.bool("playServicesTag"))
        try Expect.bytes("re-encoded map", info.cbor, linkingMap)
        let viaValue = try Expect.success("init(verifying:)", classify: vectorErrorClass(of:)) {
            try LinkingInfo(
                verifying: CBORDecoder.decode(linkingMap), clientIdentityKey: clientKey, handshakeHash: handshakeHash)
        }
        try Expect.equal("init(verifying:)", viaValue, info)
    }
}
