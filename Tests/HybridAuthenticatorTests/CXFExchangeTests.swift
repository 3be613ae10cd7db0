import Crypto
import Foundation
import HybridAuthenticator
import HybridCTAP
import HybridCore
import Testing

/// Import into and export from the passkey store, and what imported passkeys do in the engine.
@Suite struct CXFExchangeTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// A plaintext store file holding one passkey, and its bytes.
    static func storeWithOnePasskey(in directory: TemporaryDirectory) async throws -> (FilePasskeyStore, [UInt8]) {
        let path = directory.file("passkeys.json")
        let store = try FilePasskeyStore(path: path, protection: .insecurePlaintext)
        try await store.add(
            Passkey(
                metadata: PasskeyMetadata(
                    credentialID: [9, 9, 9], rpID: "example.com", userHandle: [1], userName: "bob", createdAt: now,
                    isDiscoverable: true),
                privateKey: P256.Signing.PrivateKey(), prfSecret: [UInt8](repeating: 5, count: 32)))
        return (store, Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    static func fileBytes(_ store: FilePasskeyStore) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: store.path)))
    }

    @Test(arguments: CXFDocumentTests.badDocuments)
    func aBadDocumentLeavesTheStoreByteForByte(_ bad: CXFDocumentTests.BadDocument) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let (store, before) = try await Self.storeWithOnePasskey(in: directory)
        let bytes = Array(bad.edit(try CXFDocumentTests.appendixText).utf8)
        await #expect(throws: PasskeyImportError.document(bad.expected)) {
            try await store.importCXF(bytes, replacing: true, now: Self.now)
        }
        #expect(try Self.fileBytes(store) == before)
    }

    @Test func importsTheAppendixPasskeyAndRefusesItTwiceUnlessReplacing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let (store, _) = try await Self.storeWithOnePasskey(in: directory)
        let bytes = Array(try CXFDocumentTests.appendixText.utf8)
        let report = try await store.importCXF(bytes, replacing: false, now: Self.now)
        #expect(report.outcome == .imported(count: 1, replaced: 0))
        #expect(report.plan.skipped.map(\.type) == ["basic-auth", "totp", "note", "generated-password"])
        #expect(report.plan.droppedExtensions.first?.names == ["credBlob", "largeBlob", "payments"])
        let imported = try #require(await store.passkeys(forRPID: "webauthn.io").first)
        #expect(imported.metadata.signCount == 0)
        #expect(imported.metadata.isDiscoverable)
        #expect(imported.metadata.userName == "johndoe")
        #expect(imported.metadata.createdAt == Date(timeIntervalSince1970: 1_705_142_400))
        #expect(imported.prfSecret == (try CXFDocumentTests.b64url("j3N5T9qLpWz2rYf4vS6lDn1KpQx8E0fRc2a7Bm5nUsw")))
        // Reopened from the file: the key and the secret survived the store's own format.
        let reopened = try FilePasskeyStore(path: store.path, protection: .insecurePlaintext)
        #expect(await reopened.list().count == 2)

        let before = try Self.fileBytes(store)
        let again = try await store.importCXF(bytes, replacing: false, now: Self.now)
        #expect(
            again.outcome
                == .refused([
                    PasskeyImportConflict(
                        rpID: "webauthn.io", credentialID: Array("credentialIdExample".utf8), kind: .sameCredential)
                ]))
        #expect(try Self.fileBytes(store) == before)
        let replaced = try await store.importCXF(bytes, replacing: true, now: Self.now)
        #expect(replaced.outcome == .imported(count: 1, replaced: 1))
        #expect(await store.list().count == 2)
    }

    @Test func anotherPasskeyForTheSameAccountIsAConflict() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let (store, before) = try await Self.storeWithOnePasskey(in: directory)
        let document = CXFDocument(
            exporterRPID: "other.example", exporterDisplayName: "Other", timestamp: 0,
            passkeys: [
                CXFPasskey(
                    credentialID: [1, 2, 3], rpID: "example.com", username: "bob", userDisplayName: "", userHandle: [1],
                    privateKey: P256.Signing.PrivateKey(), hmacCredentials: nil, createdAt: nil, title: nil)
            ])
        let report = try await store.importCXF(document.encoded(accountID: [0]), replacing: false, now: Self.now)
        #expect(
            report.outcome
                == .refused([
                    PasskeyImportConflict(
                        rpID: "example.com", credentialID: [1, 2, 3],
                        kind: .sameAccount(existingCredentialID: [9, 9, 9]))
                ]))
        #expect(try Self.fileBytes(store) == before)
    }

    @Test func exportLeavesOutCountersAndCarriesThePRFSecret() throws {
        let secret = [UInt8](repeating: 0x33, count: 32)
        func passkey(_ id: UInt8, count: UInt32, prf: [UInt8]?, discoverable: Bool = true) -> Passkey {
            Passkey(
                metadata: PasskeyMetadata(
                    credentialID: [id], rpID: "example.com", userHandle: [id], userName: "user\(id)", signCount: count,
                    createdAt: Self.now, isDiscoverable: discoverable),
                privateKey: P256.Signing.PrivateKey(), prfSecret: prf)
        }
        let passkeys = [
            passkey(1, count: 0, prf: secret), passkey(2, count: 3, prf: secret),
            passkey(3, count: 0, prf: nil, discoverable: false),
        ]
        let export = PasskeyExport(
            passkeys: passkeys, exporterRPID: "exporter.example", exporterDisplayName: "Exporter", timestamp: Self.now)
        #expect(export.document.passkeys.map(\.credentialID) == [[1], [3]])
        #expect(export.notes.map(\.passkey.credentialID) == [[2], [3]])
        #expect(
            export.notes.map(\.notes) == [
                [.excludedNonZeroSignatureCounter(count: 3)], [.withoutPRF, .becomesDiscoverable],
            ])

        let reread = try CXFDocument(bytes: export.document.encoded(accountID: [7, 7]))
        #expect(reread.timestamp == 1_800_000_000)
        #expect(reread.passkeys.map(\.credentialID) == [[1], [3]])
        #expect(reread.passkeys[0].privateKey.rawRepresentation == passkeys[0].privateKey.rawRepresentation)
        #expect(reread.passkeys[0].hmacCredentials?.withUV == secret)
        // credWithoutUV: HMAC-SHA-256(secret, label), a second secret, never the first.
        let withoutUV = HMAC<SHA256>.authenticationCode(
            for: Array("hybrid-authenticator CXF credWithoutUV".utf8), using: SymmetricKey(data: secret))
        #expect(reread.passkeys[0].hmacCredentials?.withoutUV == Array(withoutUV))
        #expect(reread.passkeys[1].hmacCredentials == nil)
    }

    /// The appendix's passkey, imported, answers a getAssertion: the signature verifies under the
    /// public key Python computed from the appendix's `key`, prf gives HMAC-SHA-256(credWithUV,
    /// salt) as Python computes it, and the counter stays 0 (CXF: never incremented).
    @Test func anImportedPasskeySignsWithItsKeyAndKeepsItsPRF() async throws {
        let document = try CXFDocument(bytes: Array(try CXFDocumentTests.appendixText.utf8))
        let store = InMemoryPasskeyStore(PasskeyImport(document: document, now: Self.now).passkeys)
        let authenticator = Fixtures.authenticator(store: store)
        let publicKey = try P256.Signing.PublicKey(
            x963Representation: try Hex.decode(
                "04a6764d712ec2b4a0e961c483e9d1dd59b92d2c4fd9dfe8166d49e961aaf2c15b"
                    + "47ce2f7de5fdb5e0b2bfd24d41e308b9fc97a81c449c1eece42f6d0b9b675758"))
        let salt = CTAPAuthenticatorExtensionTests.saltA
        let expected = try await CTAPAuthenticatorExtensionTests.pythonHMAC([
            (try CXFDocumentTests.b64url("j3N5T9qLpWz2rYf4vS6lDn1KpQx8E0fRc2a7Bm5nUsw"), salt)
        ])
        for _ in 0..<2 {
            var request = CTAPAuthenticatorExtensionTests.getAssertion(
                extensions: CTAPAuthenticatorExtensionTests.prf(eval: .init(first: salt)))
            request.rpID = "webauthn.io"
            let response = try GetAssertionResponse(responseBytes: await authenticator.handle(request.encoded))
            let signature = try P256.Signing.ECDSASignature(derRepresentation: response.signature)
            #expect(
                publicKey.isValidSignature(signature, for: response.authenticatorData.encoded + Fixtures.clientDataHash)
            )
            #expect(CTAPAuthenticatorExtensionTests.results(response)?.first == expected.first)
            #expect(response.authenticatorData.signCount == 0)
            #expect(response.user?.id == (try CXFDocumentTests.b64url("cnEzaNHWcYK3coWZjvoaV1Hj9gnI12mKe2dL2HZVFlY")))
        }
        #expect(await store.list().first?.signCount == 0)
    }
}

/// The export file: created 0600, never over an existing file, never through a symbolic link.
@Suite struct ExclusiveFileTests {
    @Test func createsTheFileWithMode0600() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("export.json")
        let previous = umask(0)
        defer { umask(previous) }
        try ExclusiveFile.create(atPath: path, contents: Array("secret".utf8))
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("secret".utf8))
    }

    @Test func refusesAnExistingFileAndLeavesIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("export.json")
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: ExclusiveFile.Failure.exists(path: path)) {
            try ExclusiveFile.create(atPath: path, contents: Array("new".utf8))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("old".utf8))
    }

    @Test func refusesASymbolicLinkEvenADanglingOne() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let target = directory.file("target")
        let link = directory.file("link")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        #expect(throws: ExclusiveFile.Failure.exists(path: link)) {
            try ExclusiveFile.create(atPath: link, contents: Array("secret".utf8))
        }
        #expect(!FileManager.default.fileExists(atPath: target))
        try Data("kept".utf8).write(to: URL(fileURLWithPath: target))
        #expect(throws: ExclusiveFile.Failure.exists(path: link)) {
            try ExclusiveFile.create(atPath: link, contents: Array("secret".utf8))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == Data("kept".utf8))
    }
}
