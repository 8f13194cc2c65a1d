import NestoryDomain
import Testing

@Suite struct ByteCountTests {
    /// One rule for every size shown (storage, backups, reports' history, the command line): decimal units, a few
    /// bytes never shown as nothing.
    @Test func sizesAsAPersonReadsThem() {
        #expect(ByteCount.text(0) == "0 KB")
        #expect(ByteCount.text(1) == "1 KB")
        #expect(ByteCount.text(70_000) == "70 KB")
        #expect(ByteCount.text(70_001) == "71 KB")
        #expect(ByteCount.text(999_000) == "999 KB")
        #expect(ByteCount.text(999_999) == "1.0 MB")
        #expect(ByteCount.text(999_949_999) == "999.9 MB")
        #expect(ByteCount.text(999_999_999) == "1.00 GB")
        #expect(ByteCount.text(1_500_000) == "1.5 MB")
        #expect(ByteCount.text(2_250_000_000) == "2.25 GB")
    }
}
