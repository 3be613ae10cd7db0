import HybridCTAP
import HybridCore

/// The CTAP2 parsers as the fuzz targets (Fuzz/Package.swift) reach them, beside HybridCore's
/// `CoreFuzzEntryPoints`; the oracles are the same kind (see there).
@_spi(Fuzzing) public enum CTAPFuzzEntryPoints {
    /// The targets by name (the `FUZZ_TARGET` of scripts/fuzz.sh and the seed-corpus folder).
    public static let all: [String: @Sendable ([UInt8]) -> Void] = [
        "ctapRequest": ctapRequest,
        "ctapResponse": ctapResponse,
    ]

    /// CTAP requests: a parsed request survives its own encoding (unknown keys are dropped).
    static func ctapRequest(_ input: [UInt8]) {
        guard let request = try? CTAPRequest(bytes: input) else { return }
        CoreFuzzEntryPoints.check((try? CTAPRequest(bytes: request.encoded)) == request, "CTAP request re-parse")
    }

    /// CTAP responses, as a client reads each kind.
    static func ctapResponse(_ input: [UInt8]) {
        _ = try? CTAPResponse.decode(input)
        _ = try? MakeCredentialResponse(responseBytes: input)
        _ = try? GetAssertionResponse(responseBytes: input)
        _ = try? AuthenticatorGetInfoResponse(bytes: input)
        _ = try? AuthenticatorData(bytes: input)
        _ = try? AttestationObject(bytes: input)
        _ = try? COSEKey(bytes: input)
    }

}
