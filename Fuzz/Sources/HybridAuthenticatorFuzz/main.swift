// HybridAuthenticator's reader of Credential Exchange Format documents (passkey import).
import FuzzDriver
import HybridAuthenticator

runFuzzer([
    // Any bytes: a CXFDocument or a typed CXFError, never a crash. A document that reads is
    // written back and must read again with the same passkeys (credential IDs, RP IDs, keys).
    "cxfDocument": { input in
        guard let document = try? CXFDocument(bytes: input) else { return }
        let again = try? CXFDocument(bytes: document.encoded(accountID: [1]))
        check(
            again?.passkeys.map(\.credentialID) == document.passkeys.map(\.credentialID),
            "CXF credential IDs round trip")
        check(again?.passkeys.map(\.rpID) == document.passkeys.map(\.rpID), "CXF RP IDs round trip")
        check(
            again?.passkeys.map(\.privateKey.rawRepresentation)
                == document.passkeys.map(\.privateKey.rawRepresentation),
            "CXF keys round trip")
    }
])
