import ArgumentParser
import Foundation
import HybridCore
import Testing

@testable import HybridClient
@testable import hybrid_client

/// `hybrid-client digital-credential --origin URL REQUEST.json|-`: its arguments, the request
/// file, and the exit statuses and output it promises in its help.
@Suite struct DigitalCredentialCommandTests {
    /// What a page passes to `navigator.credentials.get({digital})` (W3C Digital Credentials API).
    static let request =
        #"{"requests":[{"protocol":"openid4vp-v1-unsigned","data":{"response_type":"vp_token","nonce":"n-1","#
        + #""dcql_query":{"credentials":[{"id":"pid","format":"dc+sd-jwt"}]}}}]}"#

    static func parse(_ arguments: [String]) throws -> DigitalCredentialCommand {
        let command = try HybridClientCommand.parseAsRoot(["digital-credential"] + arguments)
        return try #require(command as? DigitalCredentialCommand)
    }

    static func file(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("dc-\(UUID().uuidString).json").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func parsesOriginRequestFileAndConnectionFlags() throws {
        let command = try Self.parse([
            "--origin", "https://verifier.example", "request.json", "--json", "--timeout", "30", "--ble", "hci",
            "--tunnel-server", "0=ws://127.0.0.1:8080",
        ])
        #expect(command.request == "request.json")
        #expect(try command.connection.webOrigin().serialization == "https://verifier.example")
        #expect(command.connection.json)
        #expect(command.connection.times.timeout == 30)
        #expect(try Self.parse(["-", "--origin", "https://verifier.example"]).request == "-")
    }

    @Test(arguments: [
        ["--origin", "https://verifier.example"],  // no REQUEST
        ["request.json"],  // no --origin
        ["request.json", "--origin", "verifier.example"],  // not an origin
        ["request.json", "--origin", "https://verifier.example", "second.json"],
        ["request.json", "--origin", "https://verifier.example", "--timeout", "0"],
        ["request.json", "--origin", "https://verifier.example", "--options", "x.json"],
    ])
    func usageErrorsAreRejected(arguments: [String]) {
        #expect(throws: (any Error).self) { try HybridClientCommand.parseAsRoot(["digital-credential"] + arguments) }
    }

    @Test func readsTheRequestOrTheWholeOptionsObject() throws {
        for text in [Self.request, #"{"digital":"# + Self.request + "}"] {
            let path = try Self.file(text)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let command = try Self.parse(["--origin", "https://verifier.example", path])
            let parsed = try command.parsedRequest()
            #expect(parsed == (try DigitalCredentialRequest(json: Array(Self.request.utf8))))
        }
    }

    /// A request that does not read is a usage error (exit 64) that names the file and the fault.
    @Test(arguments: [
        (#"{"requests":[]}"#, "lists no credential requests"),
        (#"{"requests":[{"protocol":"openid4vp-v1-unsigned"}]}"#, "lacks digital.requests[0].data"),
        (#"{"requests":"#, "not valid JSON"),
    ])
    func badRequestFileIsAUsageError(_ text: String, _ reason: String) throws {
        let path = try Self.file(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let command = try Self.parse(["--origin", "https://verifier.example", path])
        let error = try #require(throws: ValidationError.self) { try command.parsedRequest() }
        #expect(error.message.contains(reason), "\(error.message)")
        #expect(HybridClientCommand.exitCode(for: error).rawValue == ExitStatus.usage)
    }

    @Test func missingRequestFileIsAUsageErrorNamingTheArgument() throws {
        let command = try Self.parse(["--origin", "https://verifier.example", "/nonexistent/request.json"])
        let error = try #require(throws: ValidationError.self) { try command.parsedRequest() }
        #expect(error.message.hasPrefix("REQUEST /nonexistent/request.json: "), "\(error.message)")
        #expect(HybridClientCommand.exitCode(for: error).rawValue == 64)
    }

    /// The help's promise: 0 credential, 1 failure (a phone without "dc", an answer that does not
    /// read), 2 timed out, 3 the phone refused.
    @Test func exitStatusesOfTheDigitalCredentialErrors() {
        #expect(ExitStatus.forError(.digitalCredentialRefused("USER_CANCELED")) == 3)
        #expect(ExitStatus.forError(.digitalCredentialsUnsupported) == 1)
        #expect(ExitStatus.forError(.invalidResponse(.digitalCredential(.malformedJSON(offset: 3)))) == 1)
        #expect(ExitStatus.forError(.timedOut(stage: .waitingForDevice, after: .seconds(1))) == 2)
        #expect(ExitStatus.kind(.digitalCredentialRefused("NO_CREDENTIAL")) == "ctap")
    }

    /// stdout: `{"data":…,"protocol":…}` for a credential, `{"error":…}` for a refusal.
    @Test func outputIsTheCredentialOrThePhonesError() {
        let credential = DigitalCredential(protocolID: "openid4vp-v1-unsigned", data: Array(#"{"vp_token":{}}"#.utf8))
        #expect(
            String(decoding: DigitalCredentialCommand.output(credential), as: UTF8.self)
                == #"{"data":{"vp_token":{}},"protocol":"openid4vp-v1-unsigned"}"#)
        #expect(
            String(decoding: DigitalCredentialCommand.errorOutput("USER_CANCELED"), as: UTF8.self)
                == #"{"error":"USER_CANCELED"}"#)
    }
}
