import ArgumentParser
import Foundation
import HybridClient
import HybridCommandLine
import HybridCore
import HybridPresentation

/// `hybrid-client digital-credential`: ask a phone for a digital credential.
struct DigitalCredentialCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "digital-credential",
        abstract: "Ask a phone for a digital credential (navigator.credentials.get({digital})).",
        discussion: """
            REQUEST is a file (or - for stdin) holding what a page passes to \
            navigator.credentials.get({digital}): {"requests": [{"protocol": "openid4vp-v1-unsigned", \
            "data": {…}}]}, or the whole {"digital": {…}} options object. The QR code has request type \
            "dcp"; the phone must offer the "dc" feature. On success stdout gets \
            {"protocol": …, "data": {…}}; when the phone refuses, stdout gets {"error": "USER_CANCELED"} \
            (its error string) and the exit status is 3. Exit status: 0 credential, 1 failure (Bluetooth, \
            tunnel, protocol, a phone without "dc"), 2 timed out, 3 the phone refused, 64 usage, \
            130 interrupted.
            """
    )

    @Argument(help: "The Digital Credentials request JSON file, or - for stdin.")
    var request: String

    @OptionGroup var connection: ConnectionArguments

    func parsedRequest() throws -> DigitalCredentialRequest {
        try usageErrors { try DigitalCredentialRequest(json: Array(try readOptionsFile(request, argument: "REQUEST"))) }
    }

    func run() async throws {
        let origin = try connection.webOrigin()
        let digitalRequest = try parsedRequest()
        let options = try await connection.runnerOptions(optionsTimeout: nil)
        let logger = connection.log.logger(label: "hybrid-client")
        let runner = HybridClientRunner(options: options, logger: logger)
        let reporter = ProgressReporter(json: connection.json, qr: connection.qr.display(), timeout: options.timeout)
        defer { reporter.finish() }
        do {
            let credential = try await cancellingOnInterrupt {
                try await runner.requestDigitalCredential(digitalRequest, origin: origin) { reporter.report($0) }
            }
            Console.writeJSONOutput(String(decoding: Self.output(credential) + [0x0A], as: UTF8.self))
        } catch let error as HybridClientError {
            if case .digitalCredentialRefused(let code) = error {
                Console.writeJSONOutput(String(decoding: Self.errorOutput(code) + [0x0A], as: UTF8.self))
            }
            reporter.reportFailure(error.description, kind: ExitStatus.kind(error))
            throw ExitCode(ExitStatus.forError(error))
        } catch is Interrupted {
            reporter.reportFailure("interrupted", kind: "interrupted")
            throw ExitCode(ExitStatus.interrupted)
        }
    }

    /// `{"data":…,"protocol":…}`: the credential as the page's `DigitalCredential` has it.
    static func output(_ credential: DigitalCredential) -> [UInt8] {
        var members = ["data": (try? JSONNode(parsing: credential.data)) ?? .null]
        members["protocol"] = credential.protocolID.map { .string($0) }
        return JSONNode.object(members).encoded
    }

    /// `{"error":"…"}`: the phone's error string.
    static func errorOutput(_ code: String) -> [UInt8] {
        JSONNode.object(["error": .string(code)]).encoded
    }
}
