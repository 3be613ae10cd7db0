import HybridAuthenticator

/// HybridAuthenticator's parsers as the fuzz targets (Fuzz/Package.swift) reach them, without making
/// the parsers themselves public. Each returns normally for input it accepts or rejects, and traps
/// only if an oracle fails (a parsed value that does not survive its own encoding).
@_spi(Fuzzing) public enum AuthenticatorFuzzEntryPoints {
    /// Any bytes as a CXF document: a `CXFDocument` or a typed `CXFError`, never a crash. A
    /// document that reads is written back and must read again with the same passkeys (credential
    /// IDs, RP IDs, keys).
    public static func cxfDocument(_ input: [UInt8]) {
        guard let document = try? CXFDocument(bytes: input) else { return }
        let again = try? CXFDocument(bytes: document.encoded(accountID: [1]))
        precondition(
            again?.passkeys.map(\.credentialID) == document.passkeys.map(\.credentialID),
            "CXF credential IDs round trip")
        precondition(again?.passkeys.map(\.rpID) == document.passkeys.map(\.rpID), "CXF RP IDs round trip")
        precondition(
            again?.passkeys.map(\.privateKey.rawRepresentation)
                == document.passkeys.map(\.privateKey.rawRepresentation),
            "CXF keys round trip")
    }
}
