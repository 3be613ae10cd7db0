import Crypto
import Foundation
import HybridCore
import HybridWallet
import Testing

@testable import HybridAuthenticator

/// The wallet's section of the store file: encrypted, authenticated by the store's MAC, kept
/// when passkeys change, absent (an empty wallet) in stores written before it existed.
@Suite(.timeLimit(.minutes(5)))
struct WalletStoreTests {
    static let passphrase = "fixture passphrase"
    static let marker = "Marker-Given-Name-Erika"

    static func open(_ path: String, _ protection: FilePasskeyStore.Protection = .passphrase(passphrase)) throws
        -> FilePasskeyStore
    {
        try FilePasskeyStore(path: path, protection: protection, newStoreParameters: .insecureFastForTesting)
    }

    static func credential(_ id: String) -> WalletCredential {
        WalletCredential(
            id: id, format: .sdJWTVC, bytes: Array("eyJ.\(marker).x~".utf8), addedAt: Date(timeIntervalSince1970: 5))
    }

    static func fill(_ store: FilePasskeyStore) async throws -> DeviceKey {
        let key = try DeviceKey.generate { _ in Array(repeating: 9, count: 32) }
        try await store.changeWallet { (wallet) throws(PasskeyStoreError) in
            wallet.deviceKey = key
            wallet.credentials = [credential("b"), credential("a")]
            return ((), true)
        }
        return key
    }

    /// A format-1 store (written before the wallet existed) opens with an empty wallet; adding
    /// to the wallet keeps every passkey.
    @Test func anOldStoreOpensAndKeepsItsPasskeys() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("passkeys.json")
        try FileManager.default.copyItem(atPath: StoreFormatTests.fixtures + "/store-v1.json", toPath: path)
        let store = try Self.open(path)
        let before = await store.list()
        #expect(await store.walletContents().credentials.isEmpty)
        #expect(await store.walletContents().deviceKey == nil)
        let key = try await Self.fill(store)
        let reopened = try Self.open(path)
        #expect(await reopened.list() == before)
        #expect(await reopened.walletContents().credentials.map(\.id) == ["b", "a"])
        #expect(await reopened.walletContents().deviceKey?.publicJWK == key.publicJWK)
    }

    /// Passkey changes keep the wallet section byte for byte; passkey-only stores get no section.
    @Test func passkeyChangesKeepTheWalletAndOnlyWalletsWriteASection() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let (path, _) = try await StoreFormatTests.makeStore(in: directory)
        #expect(!(try StoreFormatTests.text(path)).contains("\"wallet\""))
        let store = try Self.open(path)
        _ = try await Self.fill(store)
        let section = try Self.section(path)
        try await store.add(Fixtures.passkey(id: [7, 7], user: [7], name: "carol", created: 30))
        #expect(try Self.section(path) == section)
        #expect(await (try Self.open(path)).walletContents().credentials.count == 2)
    }

    /// The credential bytes and the device key are sealed: neither appears in the file.
    @Test func contentsAreEncryptedAtRest() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("passkeys.json")
        let key = try await Self.fill(try Self.open(path))
        let text = try StoreFormatTests.text(path)
        #expect(!text.contains(Hex.encode(Array(Self.marker.utf8))))
        #expect(!text.contains(Hex.encode(Array(key.privateKey.rawRepresentation))))
        #expect(!text.contains(Self.marker))
    }

    /// A wallet box moved or changed without the passphrase fails the store's MAC.
    @Test func tamperingWithTheSectionIsDetected() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("passkeys.json")
        _ = try await Self.fill(try Self.open(path))
        let text = try StoreFormatTests.text(path)
        try StoreFormatTests.write(text.replacingOccurrences(of: "\"id\" : \"b\"", with: "\"id\" : \"c\""), to: path)
        #expect(throws: PasskeyStoreError.authenticationFailed) { try Self.open(path) }
    }

    /// A newer wallet section is refused, never rewritten without it.
    @Test func aNewerSectionVersionIsRefused() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("passkeys.json")
        let store = try Self.open(path, .insecurePlaintext)
        _ = try await Self.fill(store)
        let text = try StoreFormatTests.text(path)
        try StoreFormatTests.write(text.replacingOccurrences(of: "\"version\" : 1", with: "\"version\" : 2"), to: path)
        #expect(throws: PasskeyStoreError.unsupportedVersion(2)) { try Self.open(path, .insecurePlaintext) }
    }

    /// The file's `wallet` member, re-encoded with sorted keys.
    static func section(_ path: String) throws -> String {
        let object = try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: path)))
        guard let wallet = (object as? [String: Any])?["wallet"] else { return "" }
        return String(decoding: try JSONSerialization.data(withJSONObject: wallet, options: .sortedKeys), as: UTF8.self)
    }
}
