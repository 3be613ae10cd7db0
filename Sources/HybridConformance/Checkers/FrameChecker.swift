import HybridCore

/// `frame` (SCHEMA.md §4.17): message-type byte and payload, both directions.
struct FrameChecker: VectorKindChecker {
    let kind = "frame"

    func check(_ testCase: VectorCase) throws(VectorMismatch) {
        let revisionNumber = try testCase.int("revision")
        guard let revision = HybridProtocolRevision(rawValue: revisionNumber) else {
            throw VectorMismatch("unknown revision \(revisionNumber)")
        }
        let bytes = try testCase.bytes("frame")
        guard testCase.valid else {
            try Expect.failure(testCase, "decode", classify: vectorErrorClass(of:)) {
                _ = try HybridFrame(decoding: bytes, revision: revision)
            }
            return
        }
        let frame = try Expect.success("decode", classify: vectorErrorClass(of:)) {
            try HybridFrame(decoding: bytes, revision: revision)
        }
        try Expect.equal("type", Self.name(of: frame.type), try testCase.string("type"))
        try Expect.bytes("payload", frame.payload, try testCase.bytes("payload"))
        try Expect.bytes("encode", frame.encoded(revision: revision), bytes)
    }

    static func name(of type: HybridMessageType) -> String {
        switch type {
        case .shutdown: return "shutdown"
        case .ctap: return "ctap"
        case .update: return "update"
        case .json: return "json"
        }
    }
}
