import HybridCore

/// `advertSuffix` (SCHEMA.md §4.7): the CTAP 2.3 `{1: PSM}` map after the 20-byte advert.
struct AdvertSuffixChecker: VectorKindChecker {
    let kind = "advertSuffix"

    func check(_ testCase: VectorCase) throws(VectorMismatch) {
        let suffix = try testCase.bytes("suffix")
        if let serviceData = try testCase.optionalBytes("serviceData") {
            let split = try Expect.success("split service data", classify: vectorErrorClass(of:)) {
                try AdvertServiceData(serviceData)
            }
            try Expect.bytes("serviceData[20...]", split.suffix, suffix)
            if let keyBytes = try testCase.optionalBytes("eidKey") {
                guard let key = EIDKey(bytes: keyBytes) else { throw VectorMismatch("eidKey is not 64 bytes") }
                let plaintext = try Expect.success("decrypt serviceData[0..<20]", classify: vectorErrorClass(of:)) {
                    try key.decrypt(split.advert)
                }
                try Expect.bytes("plaintext", plaintext.bytes, try testCase.bytes("plaintext"))
            }
        }
        guard testCase.valid else {
            try Expect.failure(testCase, "parse", classify: vectorErrorClass(of:)) {
                _ = try AdvertSuffix(decoding: suffix)
            }
            return
        }
        let parsed = try Expect.success("parse", classify: vectorErrorClass(of:)) { try AdvertSuffix(decoding: suffix) }
        try Expect.equal("psm", parsed.psm.map(Int.init), try testCase.optionalInt("psm"))
        if let psm = parsed.psm, (try? CBORDecoder.decode(suffix))?.mapEntries?.count == 1 {
            try Expect.bytes("encode", AdvertSuffix(psm: psm).encoded, suffix)
        }
    }
}
