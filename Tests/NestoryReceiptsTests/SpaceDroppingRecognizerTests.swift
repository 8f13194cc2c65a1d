import Foundation
import NestoryDomain
import Testing
@testable import NestoryReceipts

/// Text as a recogniser that drops spaces and prints full-width punctuation reads it (RapidOCR's PP-OCR
/// models do both): dates glued to their times, words glued together, `（M)`, `C0.`, one letter wrong in a
/// label. Every receipt here is written by hand for the rule it checks.
@Suite struct SpaceDroppingRecognizerTests: MalaysianReceipts {
    func squeezed(_ text: String?) -> String { (text ?? "").uppercased().filter { $0.isLetter || $0.isNumber } }

    // MARK: Dates glued to times

    @Test func aTwoDigitYearGluedToTheTime() throws {
        for line in ["18/03/1815:17 SLIP NO.: 7010385084", "Date :18-03-185:23:26PM", "18/03/1815:17062051"] {
            #expect(extractor.extract(text: "KEDAI RUNCIT MAJU\n\(line)\nTOTAL 10.00", hints: malaysia).purchaseDate?.value == (try date("2018-03-18")), "\(line)")
        }
    }

    @Test func yearFirstMonthNameAndDottedTimesGluedToTheDate() throws {
        #expect(extractor.extract(text: "Date:2016/05/0114:11:20", hints: malaysia).purchaseDate?.value == (try date("2016-05-01")))
        #expect(extractor.extract(text: "05May1818:06:40", hints: malaysia).purchaseDate?.value == (try date("2018-05-05")))
        #expect(extractor.extract(text: "CB#:389772 17/01/20188.08.53", hints: malaysia).purchaseDate?.value == (try date("2018-01-17")))
    }

    @Test func aDateGluedToTheNumberBeforeIt() throws {
        let reading = extractor.extract(text: "Order No. 100021911/03/201806:20PM\nTotal 13.10", hints: malaysia)
        #expect(reading.purchaseDate?.value == (try date("2018-03-11")))
        #expect(reading.total?.value == (try ringgit("13.10")))
    }

    @Test func gluedTimesLeaveOrdinaryDatesAndAmountsAlone() throws {
        #expect(extractor.extract(text: "19/10/2018 20:49:59", hints: malaysia).purchaseDate?.value == (try date("2018-10-19")))
        #expect(extractor.extract(text: "DATE 01/03/201815:17", hints: malaysia).purchaseDate?.value == (try date("2018-03-01")))
        #expect(DateScanner.scan("TOTAL 12.50 CASH 20.00").isEmpty)
    }

    // MARK: Vendor and address

    @Test func fullWidthBracketsAndAZeroForTheLetterO() throws {
        let text = """
            BINTANG C0.（M)BHD （123456-H)
            3RD FLR, L0T 12, JALAN MERANTI
            47100 PUCHONG
            """
        let reading = extractor.extract(text: text, hints: malaysia)
        #expect(reading.vendor?.value == "BINTANG CO.(M)BHD")
        #expect(reading.address?.value == "3RD FLR, LOT 12, JALAN MERANTI 47100 PUCHONG")
    }

    @Test func wordsGluedTogetherStillNameTheShopAndTheStreet() throws {
        let text = """
            lim ah kow
            LIMKEEHARDWARETRADING
            (JM0123456-K)
            LOT7,JALANMERANTI2,
            47100PUCHONG,SELANGOR
            """
        let reading = extractor.extract(text: text, hints: malaysia)
        #expect(reading.vendor?.value == "LIMKEE HARDWARE TRADING")
        #expect(squeezed(reading.address?.value) == "LOT7JALANMERANTI247100PUCHONGSELANGOR")
        let glued = ReceiptExtractor.gluedWords(["LIMKEEHARDWARETRADING", "LOT7", "JALANMERANTI2", "TOTE"])
        #expect(Set(glued) == ["TRADING", "LOT", "JALAN"])
        #expect(Set(ReceiptExtractor.gluedWords(["LOT276JALANBANTING", "3RD", "21ST", "NO12"])) == ["LOT", "JALAN"])
        let address = extractor.extract(text: "KEDAI KAYU MAJU\nLOT276JALANBANTING\n43800DENGKIL,SELANGOR", hints: malaysia).address?.value
        #expect(address == "LOT276JALANBANTING 43800DENGKIL,SELANGOR")
    }

    @Test func aGluedStoreNameIsSetApartAtItsBusinessWords() {
        let cases = [
            "HARDWAREHAVEN": "HARDWARE HAVEN", "FAMILYMART": "FAMILY MART", "GiftShop": "Gift Shop",
            "GIFTHOMEDECO SDN BHD": "GIFT HOME DECO SDN BHD", "SANYUSTATIONERY SHOP": "SANYU STATIONERY SHOP",
            "SOONHUATMACHINERYENTERPRISE": "SOONHUATMACHINERY ENTERPRISE",
            // Left alone: a lexicon word itself, a short word at the start, names with no such word, spacing.
            "BOOKSTORE": "BOOKSTORE", "MARTINEZ HARDWARE": "MARTINEZ HARDWARE", "SHOPRITE": "SHOPRITE",
            "AEON CO. (M) BHD": "AEON CO. (M) BHD", "99 SPEED MART": "99 SPEED MART", "MART": "MART",
        ]
        for (glued, expected) in cases { #expect(ReceiptExtractor.respaced(glued) == expected, "\(glued)") }
        let reading = extractor.extract(text: "HARDWAREHAVEN\n12 MAIN STREET\nTOTAL 139.32", hints: malaysia)
        #expect(reading.vendor?.value == "HARDWARE HAVEN")
    }

    @Test func aGluedLegalFormAndABracketedIdWithALetterInIt() throws {
        let text = """
            SINARMAJUBAKERIES(KL)SDNBHD(I23456X)
            Lot5,JalanIndah 2/1,
            40000ShahAlam,Selangor.
            (GSTReg.No000123456789)
            """
        let reading = extractor.extract(text: text, hints: malaysia)
        #expect(squeezed(reading.vendor?.value) == "SINARMAJUBAKERIESKLSDNBHD")
        #expect(squeezed(reading.address?.value) == "LOT5JALANINDAH2140000SHAHALAMSELANGOR")
    }

    @Test func misreadAndGluedLegalForms() {
        #expect(ReceiptExtractor.cleanVendor("KEDAI MURAH San Bhd") == "KEDAI MURAH SDN BHD")
        #expect(ReceiptExtractor.cleanVendor("SRI WANGI SEAFOOD SDN BH") == "SRI WANGI SEAFOOD SDN BHD")
        #expect(ReceiptExtractor.cleanVendor("MEGA JAYA(KL)SDNEHD") == "MEGA JAYA(KL)SDN BHD")
        #expect(ReceiptExtractor.cleanVendor("MEGA JAYA (KL) SDN EHD") == "MEGA JAYA (KL) SDN BHD")
        #expect(ReceiptExtractor.cleanVendor("24 HOUR MART S/D") == "24 HOUR MART S/B")
        #expect(ReceiptExtractor.cleanVendor("KAI-0 TRADING") == "KAI-O TRADING")
        #expect(ReceiptExtractor.cleanVendor("Harmoni Health And Beauty Sdn Hhd") == "Harmoni Health And Beauty SDN BHD")
        // A region in brackets, one letter misread as its look-alike; other brackets stay.
        #expect(ReceiptExtractor.cleanVendor("SINAR ROTI (KI.) SDN BHD") == "SINAR ROTI (KL) SDN BHD")
        #expect(ReceiptExtractor.cleanVendor("SINAR ROTI (JOHDR) SDN BHD") == "SINAR ROTI (JOHOR) SDN BHD")
        #expect(ReceiptExtractor.cleanVendor("SINAR ROTI (KT) SDN BHD") == "SINAR ROTI (KT) SDN BHD")
        #expect(ReceiptExtractor.cleanVendor("SINAR ROTI (KL) SDN BHD") == "SINAR ROTI (KL) SDN BHD")
        // A glued name whose business word lost a letter is set apart, then the word put right.
        #expect(ReceiptExtractor.cleanVendor("MAJUSTATONERY SHOP") == "MAJU STATONERY SHOP")
        #expect(ReceiptExtractor.repairedName(ReceiptExtractor.cleanVendor("MAJUSTATONERY SHOP"), elsewhere: []) == "MAJU STATIONERY SHOP")
        #expect(ReceiptExtractor.cleanVendor("CONFECTIONARIES") == "CONFECTIONARIES")
        // Trades are business words too: a tailor's name with a letter lost is put right.
        #expect(ReceiptExtractor.repairedName("MAJU HANDICRAFT & TALORING", elsewhere: []) == "MAJU HANDICRAFT & TAILORING")
        // Glued to the name, `SON BHD` is still the legal form.
        let reading = extractor.extract(text: "stamp 12\nPERMATA MALAYSIASONBHD\nNO. 3, JALAN SERI 2", hints: malaysia)
        #expect(reading.vendor?.value == "PERMATA MALAYSIA SDN BHD")
    }

    @Test func aGluedFooterLineIsNoNameAndAShortGluedNameJoinsTheLineAbove() {
        let footer = """
            GOODSSOLDARENOTRETURNABLE.THANKYOU
            MEGA CASH & CARRY
            NO.5,JALAN SS2/1,
            """
        #expect(extractor.extract(text: footer, hints: malaysia).vendor?.value == "MEGA CASH & CARRY")
        let joined = """
            APPLETREECAFE
            ABCFOODSSDNBHD
            (1234567A)
            No3,JalanPermas 10/8,
            """
        #expect(squeezed(extractor.extract(text: joined, hints: malaysia).vendor?.value) == "APPLETREECAFEABCFOODSSDNBHD")
        let notJoined = """
            Bcd Efgh Ijk
            FarmasiSejahtera S/B(587969-U)
            23,Jln Burung Jentayu,
            """
        #expect(extractor.extract(text: notJoined, hints: malaysia).vendor?.value == "Farmasi Sejahtera S/B")
    }

    // MARK: Labels and amounts

    @Test func labelWordsWithOneLetterWrongOrADigitForALetter() {
        for label in ["Grand Tota1", "Totsl", "toal sales(Inclusive of GsT):", "Fotal Sales Inclusive GST:", "T0TAL"] {
            #expect(ReceiptExtractor.classify(label).0 == .total, "\(label)")
        }
        #expect(ReceiptExtractor.classify("Total Inchusive GST:").0 == .total)
        #expect(ReceiptExtractor.classify("Roundng Adjustment:").0 == .rounding)
        // Real words one letter away from a label word are left alone.
        #expect(ReceiptExtractor.classify("SERVICE CHARGE").0 != .change)
        #expect(ReceiptExtractor.classify("TOTE BAG").0 == .other)
        #expect(ReceiptExtractor.classify("Total Exclusive GST:").0 != .total)
    }

    @Test func aMisspeltInclusiveTotalBeatsAMisreadOne() throws {
        let text = """
            Type: 10 Total 277.90
            Rounding Adj 0.00
            Total Inchusive GST: 277.00
            CASH 277.00
            """
        #expect(extractor.extract(text: text, hints: malaysia).total?.value == (try ringgit("277.00")))
    }

    @Test func centsAfterAStrayMarkAreALostAmount() {
        #expect(AmountScanner.scan("Total (Inclusive of GST): §,50").isEmpty)
        #expect(AmountScanner.scan("ROUNDING -.01").map(\.cents) == [-1])
        #expect(AmountScanner.scan("CHANGE RM .20").map(\.cents) == [20])
    }
}
