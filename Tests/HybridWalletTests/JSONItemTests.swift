import Testing

@testable import HybridWallet

/// The wallet's JSON reading (RFC 8259, strict), now the core's reader with exact integers on top.
@Suite struct JSONItemTests {
    static func parse(_ text: String, limit: Int = 1 << 16) throws(JSONItem.ParseError) -> JSONItem {
        try JSONItem.parse(Array(text.utf8), limit: limit)
    }

    @Test func integersStayExactAndOtherNumbersAreDoubles() throws {
        #expect(try Self.parse("9007199254740993") == .integer(9_007_199_254_740_993))  // 2^53 + 1
        #expect(try Self.parse("-0") == .integer(0))
        #expect(try Self.parse("1.5") == .number(1.5))
        #expect(try Self.parse("1e2") == .number(100))
        #expect(try Self.parse("18446744073709551616") == .number(18_446_744_073_709_551_616))  // 2^64
        #expect(
            try Self.parse(#"{"a":[true,null,"x"]}"#)
                == .object(["a": .array([.bool(true), .null, .string("x")])]))
    }

    @Test(arguments: [
        #"{"a":1,"a":2}"#,  // a member named twice (RFC 8259 §4: meaning open; refused)
        #""\ud800""#,  // a lone surrogate
        "\"a\u{01}\"",  // a control character in a string
        "[1,]", "01", "1e999", "{} {}", "",
    ])
    func invalidDocumentsAreRefused(_ text: String) {
        #expect(throws: JSONItem.ParseError.self) { try Self.parse(text) }
    }

    @Test func limitsAreTyped() {
        #expect(throws: JSONItem.ParseError.tooLarge(limit: 4)) { try Self.parse("[1,2,3]", limit: 4) }
        let deep =
            String(repeating: "[", count: JSONItem.maximumDepth + 2)
            + String(repeating: "]", count: JSONItem.maximumDepth + 2)
        #expect(throws: JSONItem.ParseError.tooDeep) { try Self.parse(deep) }
        let fits =
            String(repeating: "[", count: JSONItem.maximumDepth) + String(repeating: "]", count: JSONItem.maximumDepth)
        #expect(throws: Never.self) { try Self.parse(fits) }
    }
}
