import Testing
@testable import MixServer

@Suite struct ByteRangeTests {
    /// status, first, length, Content-Range
    typealias Expected = (Int, Int64, Int64, String?)

    private func check(_ header: String?, _ fileLength: Int64, _ expected: Expected, sourceLocation: SourceLocation = #_sourceLocation) {
        let range = ByteRange(header: header, fileLength: fileLength)
        #expect(range.status == expected.0, "\(header ?? "nil")", sourceLocation: sourceLocation)
        #expect(range.first == expected.1, "\(header ?? "nil")", sourceLocation: sourceLocation)
        #expect(range.length == expected.2, "\(header ?? "nil")", sourceLocation: sourceLocation)
        #expect(range.contentRange == expected.3, "\(header ?? "nil")", sourceLocation: sourceLocation)
    }

    @Test func noHeaderIsTheWholeFile() {
        check(nil, 1000, (200, 0, 1000, nil))
        check(nil, 0, (200, 0, 0, nil))
    }

    @Test func singleRanges() {
        check("bytes=0-499", 1000, (206, 0, 500, "bytes 0-499/1000"))
        check("bytes=500-999", 1000, (206, 500, 500, "bytes 500-999/1000"))
        check("bytes=500-", 1000, (206, 500, 500, "bytes 500-999/1000"))
        check("bytes=999-", 1000, (206, 999, 1, "bytes 999-999/1000"))
        check("bytes=0-0", 1000, (206, 0, 1, "bytes 0-0/1000"))
        check("bytes=-1", 1000, (206, 999, 1, "bytes 999-999/1000"))
        check("bytes=-500", 1000, (206, 500, 500, "bytes 500-999/1000"))
        // A last byte past the end is the end; a suffix longer than the file is all of it.
        check("bytes=500-5000", 1000, (206, 500, 500, "bytes 500-999/1000"))
        check("bytes=-5000", 1000, (206, 0, 1000, "bytes 0-999/1000"))
        check("bytes=0-", 1000, (206, 0, 1000, "bytes 0-999/1000"))
    }

    @Test func toleratesSpacesAndCase() {
        check("  bytes=0-9  ", 100, (206, 0, 10, "bytes 0-9/100"))
        check("Bytes = 0-9", 100, (206, 0, 10, "bytes 0-9/100"))
        check("BYTES=\t10 - 19 ", 100, (206, 10, 10, "bytes 10-19/100"))
        check("bytes= , 0-9 ,", 100, (206, 0, 10, "bytes 0-9/100"))
    }

    @Test func unsatisfiableRangesAre416() {
        check("bytes=1000-", 1000, (416, 0, 0, "bytes */1000"))
        check("bytes=1000-2000", 1000, (416, 0, 0, "bytes */1000"))
        check("bytes=-0", 1000, (416, 0, 0, "bytes */1000"))
        check("bytes=99999999999999999999999-", 1000, (416, 0, 0, "bytes */1000"))
        check("bytes=99999999999999999999999-99999999999999999999999", 1000, (416, 0, 0, "bytes */1000"))
    }

    @Test func hugeNumbersDoNotOverflow() {
        check("bytes=0-99999999999999999999999", 1000, (206, 0, 1000, "bytes 0-999/1000"))
        check("bytes=-99999999999999999999999", 1000, (206, 0, 1000, "bytes 0-999/1000"))
        check("bytes=0-9223372036854775807", 1000, (206, 0, 1000, "bytes 0-999/1000"))
        check("bytes=9223372036854775807-", 1000, (416, 0, 0, "bytes */1000"))
        check("bytes=9223372036854775806-9223372036854775807", .max, (206, .max - 1, 1,
              "bytes 9223372036854775806-9223372036854775806/9223372036854775807"))
        check("bytes=-9223372036854775807", .max, (206, 0, .max, "bytes 0-9223372036854775806/9223372036854775807"))
        // The first number too large and the last not: last < first, invalid.
        check("bytes=99999999999999999999999-5", 1000, (200, 0, 1000, nil))
    }

    @Test func invalidHeadersAreIgnored() {
        for header in ["", "bytes", "bytes=", "bytes=-", "bytes=abc", "bytes=5", "bytes=5-4", "bytes=-5-", "bytes=--5",
                       "bytes=1-2-3", "bytes=+1-2", "bytes=0x10-", "bytes=1e3-", "items=0-9", "bytes 0-9", "=0-9",
                       "bytes=0-9;", "bytes=٣-٤", "bytes=0-9, junk", String(repeating: " ", count: 2000) + "bytes=0-9"] {
            check(header, 1000, (200, 0, 1000, nil))
        }
    }

    @Test func severalRangesGetTheWholeFile() {
        check("bytes=0-9,20-29", 1000, (200, 0, 1000, nil))
        check("bytes=0-9, -5", 1000, (200, 0, 1000, nil))
        check("bytes=2000-,3000-", 1000, (200, 0, 1000, nil))
    }

    @Test func zeroLengthFile() {
        check("bytes=0-", 0, (416, 0, 0, "bytes */0"))
        check("bytes=0-0", 0, (416, 0, 0, "bytes */0"))
        check("bytes=-1", 0, (200, 0, 0, nil))
        check("bytes=-0", 0, (416, 0, 0, "bytes */0"))
        check("bytes=junk", 0, (200, 0, 0, nil))
    }
}

@Suite struct EntityTagTests {
    let tag = EntityTag(opaque: "abc123")

    @Test func writesTheHeader() {
        #expect(tag.header == "\"abc123\"")
        #expect(EntityTag(opaque: "x", isWeak: true).header == "W/\"x\"")
    }

    @Test func ifNoneMatchUsesWeakComparison() {
        #expect(tag.matches(ifNoneMatch: "\"abc123\""))
        #expect(tag.matches(ifNoneMatch: "W/\"abc123\""))
        #expect(tag.matches(ifNoneMatch: "*"))
        #expect(tag.matches(ifNoneMatch: " * "))
        #expect(tag.matches(ifNoneMatch: "\"x\", W/\"abc123\""))
        #expect(tag.matches(ifNoneMatch: "\"x\",\"abc123\" ,"))
        #expect(EntityTag(opaque: "abc123", isWeak: true).matches(ifNoneMatch: "\"abc123\""))
        #expect(!tag.matches(ifNoneMatch: "\"abc1234\""))
        #expect(!tag.matches(ifNoneMatch: "\"x\", \"y\""))
        #expect(!tag.matches(ifNoneMatch: "abc123"))
        #expect(!tag.matches(ifNoneMatch: "w/\"abc123\""))
        #expect(!tag.matches(ifNoneMatch: "\"abc123\", junk"))
        #expect(!tag.matches(ifNoneMatch: "\"abc 123\""))
        #expect(!tag.matches(ifNoneMatch: ""))
        #expect(!tag.matches(ifNoneMatch: "\""))
        // "*" is allowed only alone: in a list it is malformed, and a malformed value matches nothing.
        #expect(!tag.matches(ifNoneMatch: "*, \"abc123\""))
    }

    @Test func ifRangeUsesStrongComparison() {
        #expect(tag.allowsRange(ifRange: nil))
        #expect(tag.allowsRange(ifRange: "\"abc123\""))
        #expect(tag.allowsRange(ifRange: " \"abc123\" "))
        #expect(!tag.allowsRange(ifRange: "W/\"abc123\""))
        #expect(!tag.allowsRange(ifRange: "\"other\""))
        #expect(!tag.allowsRange(ifRange: "Tue, 14 Nov 2023 22:13:20 GMT"))
        #expect(!tag.allowsRange(ifRange: "\"abc123\", \"abc123\""))
        #expect(!tag.allowsRange(ifRange: ""))
        #expect(!EntityTag(opaque: "abc123", isWeak: true).allowsRange(ifRange: "\"abc123\""))
    }

    @Test func rangeWithIfRangeMismatchIsTheWholeFile() {
        let ifRange = "\"stale\""
        let header: String? = tag.allowsRange(ifRange: ifRange) ? "bytes=0-9" : nil
        #expect(ByteRange(header: header, fileLength: 100).status == 200)
    }
}
