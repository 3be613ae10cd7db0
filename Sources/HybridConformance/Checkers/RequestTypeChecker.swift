import HybridCore

/// `requestType` (SCHEMA.md §4.12): QR key 5 string → effective request type, and whether it round-trips.
struct RequestTypeChecker: VectorKindChecker {
    let kind = "requestType"
    let definesInvalidCases = false

    func check(_ testCase: VectorCase) throws(VectorMismatch) {
        let hint = try testCase.string("string")
        let requestType = HybridRequestType(hint: hint)
        try Expect.equal("requestType", requestType.hint, try testCase.string("requestType"))
        try Expect.equal("roundTrip", requestType.hint == hint, try testCase.bool("roundTrip"))
    }
}
