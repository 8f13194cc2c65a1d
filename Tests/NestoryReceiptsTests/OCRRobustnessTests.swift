import Foundation
import NestoryDomain
import Testing
@testable import NestoryReceipts

/// The rules that read totals from column layouts and put right the usual recognition errors in amounts and
/// dates. Every receipt here is written by hand for the rule it checks.
@Suite struct OCRRobustnessTests: MalaysianReceipts {

    // MARK: Totals from the closing figures

    @Test func paidMinusChangeInAColumnNamesTheTotalWhateverTheLabelsAbove() throws {
        // More labels than values: pairing them in order would call 7.60 the total.
        let text = """
            KEDAI BUKU CERIA SDN BHD
            ITEM(S) : 2
            QTY(S) : 3
            TOTAL AMT
            CASH
            CHANGE
            12.40
            20.00
            7.60
            """
        let reading = extractor.extract(text: text, hints: malaysia)
        #expect(reading.total?.value == (try ringgit("12.40")))
    }

    @Test func aTotalItsRoundingAndTheRoundedTotalInARow() throws {
        let text = """
            PASAR MINI SEGAR
            TOTAL :
            ROUNDING ADJ :
            BALANCE DUE :
            PAYMENT :
            LAST VISIT :
            SUMMARY
            31.47
            -0.02
            31.45
            """
        let reading = extractor.extract(text: text, hints: malaysia)
        #expect(reading.total?.value == (try ringgit("31.45")))
    }

    @Test func aTaxBesideItsNetAmountIsNotReadAsPaidMinusChange() throws {
        // `0.60 10.60 10.00` is tax, total, net: 10.60 - 10.00 = 0.60 must not make the tax the total.
        let text = """
            WARUNG TEH TARIK
            SUB TOTAL 10.00
            TOTAL GST 0.60
            TOTAL 10.60
            0.60
            10.60
            10.00
            """
        let reading = extractor.extract(text: text, hints: malaysia)
        #expect(reading.total?.value == (try ringgit("10.60")))
    }

    @Test func registrationLinesAndIncludedTaxDoNotLabelTheTotal() throws {
        let text = """
            KEDAI ALAT TULIS BESTARI SDN BHD
            (GST REG NO. 000987654321)
            PEN MERAH 2.50
            FAIL A4 8.40
            TOTAL INCL. GST@6%
            RM 10.90
            CASH
            RM 11.00
            CHANGE
            RM 0.10
            GST @6% INCLUDED IN TOTAL 0.62
            """
        let reading = extractor.extract(text: text, hints: malaysia)
        #expect(reading.total?.value == (try ringgit("10.90")))
        #expect(reading.tax?.value == (try ringgit("0.62")))
    }

    @Test func aNegativeTenderedAmountStillCountsAsCash() throws {
        let text = """
            KEDAI CERMIN MATA
            GST SUMMARY 0.41
            CASH -10.00
            CHANGE 2.70
            TOTAL SAVINGS 7.30
            """
        let reading = extractor.extract(text: text, hints: malaysia)
        #expect(reading.total?.value == (try ringgit("7.30")))
    }

    @Test func theTotalAfterAdjustmentIsTheRoundedTotal() throws {
        let text = """
            KEDAI FARMASI SIHAT
            Sub-total 17.76
            Total Sales Incl GST 17.76
            Total After Adj Incl GST 17.75
            CASH 20.00
            """
        let reading = extractor.extract(text: text, hints: malaysia)
        #expect(reading.total?.value == (try ringgit("17.75")))
    }

    @Test func aRoundedAmountUnderAnUnroundedTotalIsWhatWasPaid() throws {
        // The rounded total's label was misread (`RH` for `RM`), so only its place says what it is.
        let text = """
            KEDAI HIASAN RUMAH
            TOTAL AMT RM 45.62
            ROUNDING ADJ -0.02
            RH 45,60
            CASH RM 50.00
            CHANGE RM 4.40
            """
        let reading = extractor.extract(text: text, hints: malaysia)
        #expect(reading.total?.value == (try ringgit("45.60")))
    }

    @Test func aTotalThatLostItsFirstDigitGivesWayToTheSubtotalItEnds() throws {
        let text = """
            KEDAI PERABOT SINAR
            8710163220787 2 12.00 24.00
            SUB-TOTAL (GST) 24.00
            ROUNDING 0.00
            TOTAL =<4.00
            """
        let reading = extractor.extract(text: text, hints: malaysia)
        #expect(reading.total?.value == (try ringgit("24.00")))
        // An ordinary total below a larger subtotal that merely ends the same way is left alone.
        let discounted = """
            KEDAI PERABOT SINAR
            SUB-TOTAL 24.00
            DISCOUNT 20.00
            TOTAL 4.00
            """
        #expect(extractor.extract(text: discounted, hints: malaysia).total?.value == (try ringgit("4.00")))
    }

    // MARK: Amounts misread by OCR

    @Test func amountRepairsUndoDigitLetterConfusionsOnlyInAmounts() {
        #expect(AmountScanner.repair("CHANGE RMO.00") == "CHANGE RM0.00")
        #expect(AmountScanner.repair("TOTAL 15.u0") == "TOTAL 15.00")
        #expect(AmountScanner.repair("CASH 5O.00") == "CASH 50.00")
        #expect(AmountScanner.repair("TOTAL RY 14. 65") == "TOTAL RY 14.65")
        #expect(AmountScanner.repair("CASH RM50 .00") == "CASH RM50.00")
        #expect(AmountScanner.repair("Cash RM30 30") == "Cash RM30.30")
        #expect(AmountScanner.repair("Cash -11, 80") == "Cash -11.80")
        // Words, addresses and codes stay as printed.
        #expect(AmountScanner.repair("NO. 53, JALAN BESAR") == "NO. 53, JALAN BESAR")
        #expect(AmountScanner.repair("NO 18, 20, 22, JALAN MAWAR 2/16") == "NO 18, 20, 22, JALAN MAWAR 2/16")
        #expect(AmountScanner.repair("SO.SO BOUTIQUE") == "SO.SO BOUTIQUE")
        #expect(AmountScanner.repair("LOT 17, 18") == "LOT 17, 18")
    }

    @Test func aRateWithASpaceBeforeItsPercentSignIsNotMoney() {
        #expect(AmountScanner.scan("GST 6.00 %").isEmpty)
        #expect(AmountScanner.scan("GST 6.00 % RM0.17").map(\.cents) == [17])
    }

    @Test func centsSetApartBySpaceAfterAMoneyLabel() throws {
        let text = """
            KEDAI RUNCIT ANEKA
            Sub-total 42.46
            Total After Adj Incl GST 42 50
            CASH 50.00
            """
        let reading = extractor.extract(text: text, hints: malaysia)
        #expect(reading.total?.value == (try ringgit("42.50")))
    }

    // MARK: Dates misread by OCR

    @Test func dateRepairsForLookAlikesAndSpaces() throws {
        func read(_ line: String) -> CalendarDate? { DateScanner.scan(line).first?.date(.dayFirst) }
        #expect(read("Date: @5/09/2@17") == (try date("2017-09-05")))
        #expect(read("Z0-12-17 18:52 SH01") == (try date("2017-12-20")))
        #expect(read("24- I1- 17 13:11 SH01") == (try date("2017-11-24")))
        #expect(read("Date 06 02/2018 07:09:46 PM") == (try date("2018-02-06")))
        // Not dates: a phone number, a word before digits, a quantity and a price.
        #expect(DateScanner.scan("TEL 03- 5542 3228").isEmpty)
        #expect(DateScanner.scan("SZ0-12 ITEM").isEmpty)
        #expect(DateScanner.scan("2 12.50").isEmpty)
    }
}
