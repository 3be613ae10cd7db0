import HybridCTAP
import HybridCore

/// A sign-in's extensions for one phone, as Chromium specializes them
/// (`GetAssertionRequestHandler::SpecializeRequestForAuthenticator`, `FidoDeviceAuthenticator`), and
/// the mapping of the phone's outputs back to client extension results. Sans-IO.
///
/// CTAP inputs sent (authenticatorGetAssertion key 4):
/// - `"prf": {"eval"?: {"first": salt, "second"?: salt}, "evalByCredential"?: {credential ID (bytes):
///   {"first": salt, "second"?: salt}}}` when getInfo lists `prf` and there are inputs (only allowed
///   credentials); the salts are SHA-256("WebAuthn PRF" ‖ 0x00 ‖ input). Without `prf` support nothing
///   is sent (hmac-secret would need a clientPIN key agreement, a second command that phones refuse,
///   protocol.md §8.1) and the result is `prf: {}`.
/// - `"largeBlob": {"read": true}` or `{"write": raw DEFLATE, "originalSize": n}` when getInfo lists
///   `largeBlob`; else the result is `largeBlob: {}` or `{"written": false}`.
struct AuthenticationExtensionPlan: Sendable, Hashable {
    var prfRequested: Bool
    /// The salted inputs sent, `nil` when no `prf` input goes to the phone.
    var prf: PRFInputs?
    var largeBlobReadRequested: Bool
    var largeBlobWriteRequested: Bool
    var largeBlobRead: Bool
    /// The compressed blob and its original size, when a write goes to the phone.
    var largeBlobWrite: CompressedBlob?

    struct CompressedBlob: Sendable, Hashable {
        var compressed: [UInt8]
        var originalSize: Int
    }

    init(options: PublicKeyCredentialRequestOptionsJSON, authenticatorInfo: AuthenticatorGetInfoResponse?) {
        let inputs = options.extensions
        let support = ExtensionSupport(authenticatorInfo)
        prfRequested = inputs.prf != nil
        prf = nil
        if let prfInputs = inputs.prf, support.prf {
            let allowed = Set(options.allowCredentials.map(\.id))
            var salted = PRFInputs(eval: prfInputs.eval?.salts)
            for (id, values) in prfInputs.evalByCredential where allowed.contains(id) {
                salted.evalByCredential[id] = values.salts
            }
            if salted.eval != nil || !salted.evalByCredential.isEmpty { prf = salted }
        }
        largeBlobReadRequested = inputs.largeBlobRead
        largeBlobWriteRequested = inputs.largeBlobWrite != nil
        largeBlobRead = inputs.largeBlobRead && support.largeBlob
        largeBlobWrite = nil
        if let blob = inputs.largeBlobWrite, support.largeBlob, let compressed = LargeBlobCompression.compress(blob) {
            largeBlobWrite = CompressedBlob(compressed: compressed, originalSize: blob.count)
        }
    }

    /// Chromium asks for UV where the phone has it whenever PRF inputs are given, supported or not.
    func upgradesUserVerification(_ options: PublicKeyCredentialRequestOptionsJSON) -> Bool {
        guard let inputs = options.extensions.prf else { return false }
        return inputs.eval != nil || !inputs.evalByCredential.isEmpty
    }

    /// The CTAP extensions map (key 4), or `nil` when empty. Map keys are sorted by the encoder.
    var ctapExtensions: CBORValue? {
        var entries: [CBORMapEntry] = []
        if let prf {
            var prfEntries: [CBORMapEntry] = []
            if let eval = prf.eval { prfEntries.append(CBORMapEntry(.text("eval"), eval.cbor)) }
            if !prf.evalByCredential.isEmpty {
                let byCredential = prf.evalByCredential.map { CBORMapEntry(.bytes($0.key), $0.value.cbor) }
                prfEntries.append(CBORMapEntry(.text("evalByCredential"), .map(byCredential)))
            }
            entries.append(CBORMapEntry(.text("prf"), .map(prfEntries)))
        }
        if largeBlobRead {
            entries.append(CBORMapEntry(.text("largeBlob"), .map([CBORMapEntry(.text("read"), .bool(true))])))
        } else if let largeBlobWrite {
            entries.append(
                CBORMapEntry(
                    .text("largeBlob"),
                    .map([
                        CBORMapEntry(.text("write"), .bytes(largeBlobWrite.compressed)),
                        CBORMapEntry(.text("originalSize"), .int(Int64(largeBlobWrite.originalSize))),
                    ])))
        }
        return entries.isEmpty ? nil : .map(entries)
    }

    /// Checks the phone's extension outputs as Chromium does (no authenticator-data extension was
    /// requested; unsigned outputs, key 8, only for what was sent) and returns the client results.
    func results(for assertion: GetAssertionResponse) throws(ResponseMappingError) -> ClientExtensionResults {
        // Nothing this client sends asks for an authenticator-data output (Chromium's
        // GetAssertionTask refuses an hmac-secret it did not request).
        if let name = try ExtensionOutputs.entries(assertion.authenticatorData.extensions).first?.name {
            throw .unexpectedExtension(name)
        }
        var prfResults: PRFValues?
        var blob: [UInt8]?
        var written = false
        for (name, value) in try ExtensionOutputs.entries(assertion.unsignedExtensionOutputs) {
            switch name {
            case "prf":
                guard prf != nil else { throw .unexpectedExtension(name) }
                prfResults = try ExtensionOutputs.prf(value, evaluated: true).results
            case "largeBlob":
                let output = try Self.largeBlobOutput(value)
                switch output {
                case .blob(let compressed, let originalSize):
                    guard largeBlobRead else { throw .unexpectedExtension(name) }
                    blob = LargeBlobCompression.decompress(compressed, originalSize: originalSize)
                case .written(let value):
                    guard largeBlobWrite != nil else { throw .unexpectedExtension(name) }
                    written = value
                }
            default:
                throw .unexpectedExtension(name)
            }
        }
        var results = ClientExtensionResults()
        if prfRequested { results.prf = .init(results: prfResults) }
        if largeBlobReadRequested { results.largeBlob = .init(blob: blob) }
        if largeBlobWriteRequested { results.largeBlob = .init(written: written) }
        return results
    }

    private enum LargeBlobOutput {
        case blob([UInt8], originalSize: Int)
        case written(Bool)
    }

    /// `{"blob": bytes, "originalSize": uint}` or `{"written": bool}`, nothing else (Chromium's
    /// `ReadCTAPGetAssertionResponse`).
    private static func largeBlobOutput(_ value: CBORValue) throws(ResponseMappingError) -> LargeBlobOutput {
        guard let entries = value.mapEntries else { throw .unexpectedExtension("largeBlob") }
        if entries.count == 1, let written = value[textKey: "written"]?.boolValue { return .written(written) }
        if entries.count == 2, let blob = value[textKey: "blob"]?.bytesValue,
            let size = value[textKey: "originalSize"]?.intValue, size >= 0, size <= Int64(Int.max)
        {
            return .blob(blob, originalSize: Int(size))
        }
        throw .unexpectedExtension("largeBlob")
    }
}
