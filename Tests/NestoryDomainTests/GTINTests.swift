import NestoryDomain
import Testing

@Suite struct GTINTests {
    @Test func parsesEachFormatToOneFourteenDigitKey() throws {
        let ean13 = try GTIN(parsing: "5901234123457")
        #expect(ean13.format == .ean13)
        #expect(ean13.key == "05901234123457")
        #expect(ean13.gtin13 == "5901234123457")
        #expect(ean13.upcA == nil)

        let ean8 = try GTIN(parsing: "96385074")
        #expect(ean8.format == .ean8)
        #expect(ean8.key == "00000096385074")
        #expect(ean8.gtin13 == "0000096385074")

        let upcA = try GTIN(parsing: "036000291452")
        #expect(upcA.format == .upcA)
        #expect(upcA.key == "00036000291452")

        let gtin14 = try GTIN(parsing: "10012345678902")
        #expect(gtin14.format == .gtin14)
        #expect(gtin14.key == "10012345678902")
        #expect(gtin14.gtin13 == nil)
    }

    @Test func oneProductInEveryFormIsOneGTIN() throws {
        let forms = ["036000291452", "0036000291452", "00036000291452", " 0 36000 29145 2 "]
        let keys = Set(try forms.map { try GTIN(parsing: $0).key })
        #expect(keys == ["00036000291452"])
        #expect(GTIN("036000291452") == GTIN("0036000291452"))

        // A UPC-E and the UPC-A it stands for.
        let upcE = try GTIN(parsing: "04252614", format: .upcE)
        let upcA = try GTIN(parsing: "042100005264")
        #expect(upcE.format == .upcE)
        #expect(upcE == upcA)
        #expect(upcE.key == "00042100005264")
        #expect(upcA.upcE == "04252614")
    }

    @Test func leadingZerosAreKept() throws {
        let gtin = try GTIN(parsing: "0000096385074")
        #expect(gtin.format == .ean13)
        #expect(gtin.digits == "0000096385074")
        #expect(gtin == GTIN("96385074", format: .ean8))
        #expect(try GTIN(parsing: "00000000000000").key == "00000000000000")
    }

    /// Each sixth data digit of a UPC-E selects a different zero-suppression rule.
    @Test(arguments: [
        ("0123450", "01200000345"),
        ("0123451", "01210000345"),
        ("0123452", "01220000345"),
        ("0123453", "01230000045"),
        ("0123454", "01234000005"),
        ("0123455", "01234500005"),
        ("0123456", "01234500006"),
        ("0123457", "01234500007"),
        ("0123458", "01234500008"),
        ("0123459", "01234500009"),
        ("1987653", "19870000065"),
    ])
    func expandsUPCEForEachLastDigit(body: String, upcABody: String) throws {
        let check = try #require(GTIN.checkDigit(for: upcABody))
        let upcE = body + String(check)
        let upcA = upcABody + String(check)
        #expect(GTIN.expandUPCE(upcE) == upcA)
        let parsed = try GTIN(parsing: upcE, format: .upcE)
        #expect(parsed.key == "00" + upcA)
        #expect(parsed.upcA == upcA)
        // Compressing back gives the standard UPC-E form.
        #expect(GTIN.compressUPCA(upcA) == upcE)
        #expect(parsed.lookupKeys == [upcE, "0" + upcA, upcA, "00" + upcA])
    }

    @Test func upcEWithoutStandardFormDoesNotCompress() {
        // Manufacturer 12345 with product 00067: no zero-suppression rule fits.
        let upcA = "0123450006" + "7"
        let full = upcA + String(GTIN.checkDigit(for: upcA)!)
        #expect(GTIN.compressUPCA(full) == nil)
        #expect(GTIN.compressUPCA("5901234123457") == nil)
        #expect(GTIN.compressUPCA("212345000058") == nil, "number system 2 has no UPC-E")
        #expect(GTIN.expandUPCE("22345678") == nil)
        #expect(throws: GTINError.badNumberSystem("22345678")) { try GTIN(parsing: "22345678", format: .upcE) }
    }

    @Test func checkDigits() {
        #expect(GTIN.checkDigit(for: "590123412345") == 7)
        #expect(GTIN.checkDigit(for: "9638507") == 4)
        #expect(GTIN.checkDigit(for: "03600029145") == 2)
        #expect(GTIN.checkDigit(for: "1001234567890") == 2)
        #expect(GTIN.checkDigit(for: "12a") == nil)
        #expect(GTIN.hasValidCheckDigit("5901234123457"))
        #expect(!GTIN.hasValidCheckDigit("5901234123458"))
        #expect(!GTIN.hasValidCheckDigit("7"))
    }

    @Test func rejectsBadCheckDigitsInEveryLength() {
        for bad in ["5901234123458", "96385075", "036000291453", "10012345678903"] {
            #expect(throws: GTINError.badCheckDigit(bad)) { try GTIN(parsing: bad) }
            #expect(GTIN(bad) == nil)
        }
        // A UPC-E whose check digit does not match its expansion (and is no EAN-8 either).
        #expect(throws: GTINError.badCheckDigit("04252615")) { try GTIN(parsing: "04252615", format: .upcE) }
    }

    @Test func rejectsNonDigitsAndWrongLengths() {
        #expect(throws: GTINError.empty) { try GTIN(parsing: "") }
        #expect(throws: GTINError.empty) { try GTIN(parsing: "  \t ") }
        #expect(throws: GTINError.notDigits("59O1234123457")) { try GTIN(parsing: "59O1234123457") }
        #expect(throws: GTINError.notDigits("５９０１２３４１２３４５７")) { try GTIN(parsing: "５９０１２３４１２３４５７") }
        #expect(throws: GTINError.notDigits("5901234123457\u{301}")) { try GTIN(parsing: "5901234123457\u{301}") }
        #expect(throws: GTINError.wrongLength(7)) { try GTIN(parsing: "1234567") }
        #expect(throws: GTINError.wrongLength(11)) { try GTIN(parsing: "03600029145") }
        #expect(throws: GTINError.wrongLength(16)) { try GTIN(parsing: "1234567890123456") }
        #expect(GTINError.badCheckDigit("5901234123458").message.contains("check digit"))
    }

    @Test func ignoresWhitespaceAndSeparators() throws {
        #expect(try GTIN(parsing: "\n 5901234123457\t").digits == "5901234123457")
        #expect(try GTIN(parsing: "5 901234 123457").key == "05901234123457")
        #expect(try GTIN(parsing: "0-36000-29145-2").key == "00036000291452")
    }

    @Test func splitsAddOnCodes() throws {
        let separated = try GTIN(parsing: "9771234567003 05")
        #expect(separated.digits == "9771234567003")
        #expect(separated.addOn == "05")
        let five = try GTIN(parsing: "978020137962 4 51995")
        #expect(five.digits == "9780201379624")
        #expect(five.addOn == "51995")
        let joined = try GTIN(parsing: "978020137962451995")
        #expect(joined.addOn == "51995")
        #expect(joined.key == "09780201379624")
        let upcWithFive = try GTIN(parsing: "03600029145212345")
        #expect(upcWithFive.format == .upcA)
        #expect(upcWithFive.addOn == "12345")
        let twoJoined = try GTIN(parsing: "977123456700305")
        #expect(twoJoined.addOn == "05")
        // An add-on does not rescue a bad main code.
        #expect(GTIN("9771234567004 05") == nil)
    }

    @Test func eightDigitsPreferEAN8UnlessToldOtherwise() throws {
        // 96385074 is a valid EAN-8; as a UPC-E its check digit would not fit.
        #expect(try GTIN(parsing: "96385074").format == .ean8)
        // 04252614 is no valid EAN-8 but a valid UPC-E.
        let upcE = try GTIN(parsing: "04252614")
        #expect(upcE.format == .upcE)
        #expect(upcE.key == "00042100005264")
    }

    @Test func lookupKeysCoverMixedCatalogueForms() throws {
        #expect(try GTIN(parsing: "036000291452").lookupKeys == ["036000291452", "0036000291452", "00036000291452"])
        #expect(try GTIN(parsing: "5901234123457").lookupKeys == ["5901234123457", "05901234123457"])
        #expect(try GTIN(parsing: "0042100005264").lookupKeys == ["0042100005264", "042100005264", "04252614", "00042100005264"])
        #expect(try GTIN(parsing: "96385074").lookupKeys == ["96385074", "0000096385074", "000096385074", "00000096385074"])
    }
}
