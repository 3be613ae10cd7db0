import Foundation
import HybridAuthenticator
import Synchronization
import Testing

@testable import hybrid_authenticator

/// `--insecure-fast-store-kdf` needs `HYBRID_ALLOW_INSECURE_FAST_KDF=1`, as `--ble sim` needs
/// `HYBRID_ALLOW_SIMULATED_AIR=1`, and every opening of a store cheaper than the recommended scrypt
/// cost says so once on standard error.
@Suite(.timeLimit(.minutes(2)))
struct FastStoreKDFGateTests {
    @Test(arguments: [nil, "0", "yes", ""])
    func theFastKDFFlagIsRefusedWithoutTheVariable(value: String?) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let path = directory.file("fast.json")
        var environment = [StoreOptions.passphraseVariable: "pass"]
        environment[StoreOptions.fastKDFAllowVariable] = value
        let options = try StoreOptions.parse(["--store", path, "--insecure-fast-store-kdf"])
        let error = await #expect(throws: StoreAccessError.self) {
            _ = try await options.open(console: ScriptedConsole([]), environment: environment, unsetVariable: { _ in })
        }
        #expect(error?.reason == .fastKDFNotAllowed)
        #expect(error?.description.contains("HYBRID_ALLOW_INSECURE_FAST_KDF=1") == true)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// A store at the test-only cost warns on every open (new, then reopened without the flag),
    /// once each; a store at the recommended cost does not.
    @Test func aCheapStoreWarnsOncePerOpen() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let warnings = Mutex<[String]>([])
        let warn: (String) -> Void = { line in warnings.withLock { $0.append(line) } }
        let environment = [StoreOptions.passphraseVariable: "pass", StoreOptions.fastKDFAllowVariable: "1"]
        let fast = directory.file("fast.json")
        let created = try await StoreOptions.parse(["--store", fast, "--insecure-fast-store-kdf"]).open(
            console: ScriptedConsole([]), environment: environment, unsetVariable: { _ in }, warn: warn)
        try await created.add(Fixtures.passkey(id: Array(repeating: 1, count: 16), user: [1], name: "alice"))
        #expect(warnings.withLock { $0.count } == 1)
        _ = try await StoreOptions.parse(["--store", fast]).open(
            console: ScriptedConsole([]), environment: environment, unsetVariable: { _ in }, warn: warn)
        let seen = warnings.withLock { $0 }
        #expect(seen.count == 2)
        #expect(seen.allSatisfy { $0.contains("test-only scrypt cost (N=16384") && $0.contains(fast) })

        warnings.withLock { $0.removeAll() }
        _ = try await StoreOptions.parse(["--store", directory.file("recommended.json")]).open(
            console: ScriptedConsole([]), environment: environment, unsetVariable: { _ in }, warn: warn)
        #expect(warnings.withLock { $0.isEmpty })
    }
}
