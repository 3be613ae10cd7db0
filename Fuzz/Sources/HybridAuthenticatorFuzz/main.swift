// HybridAuthenticator's reader of Credential Exchange Format documents (passkey import).
import FuzzDriver
@_spi(Fuzzing) import HybridFuzzOracles

runFuzzer([
    // Any bytes: a CXFDocument or a typed CXFError, never a crash; a document that reads round-trips.
    "cxfDocument": AuthenticatorFuzzEntryPoints.cxfDocument
])
