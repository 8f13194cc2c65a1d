import Foundation
import NestoryDomain
import Testing
@testable import NestoryReceipts

/// The store's name and address from the header (issue 22): general rules, each checked on a receipt written by
/// hand for it (no store of any data set).
@Suite struct ReceiptHeaderTests: MalaysianReceipts {
    func squeezed(_ text: String?) -> String { (text ?? "").uppercased().filter { $0.isLetter || $0.isNumber } }

    // MARK: Vendor

    @Test func aNumberAboveTheNameIsNotTheContactBlock() {
        // A receipt or terminal number printed first does not push the name below "the address and contacts".
        let text = "KOPI\n3180404\nBINTANG MAKMUR SDN BHD (1206674-T)\nNO 3, JALAN MAWAR 2\n47400 PETALING JAYA"
        #expect(extractor.extract(text: text, hints: malaysia).vendor?.value == "BINTANG MAKMUR SDN BHD")
    }

    @Test func aWebAddressInAGreetingAboveTheNameIsNotTheContactBlock() {
        // The operating company's legal name, printed below the address, is not the store's name.
        let text = """
            TQ FOR SHOPPING WITH kedaimaju.com
            SERI MAJU REST AREA
            LOT 5, JALAN MAWAR,
            84600 PAGOH, JOHOR
            MAJU RETAIL SDN BHD (306295-X)
            TAX REG ID 000709361664
            """
        #expect(extractor.extract(text: text, hints: malaysia).vendor?.value == "SERI MAJU REST AREA")
    }

    @Test func aTradingNameThatSaysItsWordAgainOnTheNextLineRunsOverBoth() {
        let text = "RESTORAN SERI\nSERIHOUSE\n002693074-K\n13,JLN TASIK 8\n57000 KL"
        #expect(extractor.extract(text: text, hints: malaysia).vendor?.value == "RESTORAN SERI SERIHOUSE")
        // A legal name under the trading name is the vendor alone.
        let legal = "MAWAR\nMAWAR CONFECTIONERY & BAKERY S/B\nCOMPANY NO: 499702-V\nLOT 5, JALAN DESA 2\n81100 JOHOR BAHRU"
        #expect(extractor.extract(text: legal, hints: malaysia).vendor?.value == "MAWAR CONFECTIONERY & BAKERY S/B")
    }

    @Test func theRegistrationNumberMarksTheLegalNameWhenTheLegalFormIsMisread() {
        let text = "GOLDEN LEAF\nSRI MAJU JAYA 5/8 (519537-X)\nLOT 2, JALAN MERANTI\n41150 KLANG"
        #expect(extractor.extract(text: text, hints: malaysia).vendor?.value == "SRI MAJU JAYA S/B")
        // Without the number the first line stays the name (nothing says otherwise).
        #expect(extractor.extract(text: "GOLDEN LEAF\nSRI MAJU JAYA\nLOT 2, JALAN MERANTI", hints: malaysia).vendor?.value == "GOLDEN LEAF")
    }

    @Test func aLetterMisreadInTheNameIsPutRightByWhatTheReceiptSaysElsewhere() {
        let text = """
            Goardian Pharmacy SDN BHD
            NO 3, JALAN MAWAR 2
            TOTAL 12.00
            Thank you for shopping at Guardian
            """
        #expect(extractor.extract(text: text, hints: malaysia).vendor?.value == "Guardian Pharmacy SDN BHD")
        // A letter missing, in a long word, said again inside a web address.
        #expect(ReceiptExtractor.repairedName("GARDEIA BAKERS", elsewhere: ["WWW.GARDENIA.COM.MY"]) == "GARDENIA BAKERS")
        // Left alone: the same word printed as it is elsewhere, a final S, short words and letters not confused.
        #expect(ReceiptExtractor.repairedName("KING'S CAKES", elsewhere: ["KINGS CAKES"]) == "KING'S CAKES")
        #expect(ReceiptExtractor.repairedName("YONG TRADING", elsewhere: ["YOUNG"]) == "YONG TRADING")
        #expect(ReceiptExtractor.repairedName("GUARDIAN", elsewhere: ["GOARDIAN", "GUARDIAN"]) == "GUARDIAN")
    }

    @Test func aLetterMisreadInABusinessWordOrLegalForm() {
        #expect(ReceiptExtractor.repairedName("99 SPEED NART S/B", elsewhere: []) == "99 SPEED MART S/B")
        #expect(ReceiptExtractor.repairedName("Verbena Confectiunery SDN BHD", elsewhere: []) == "Verbena Confectionery SDN BHD")
        #expect(ReceiptExtractor.repairedName("SIN THYE & COMFANY", elsewhere: []) == "SIN THYE & COMPANY")
        #expect(ReceiptExtractor.repairedName("LIM HOIDINGS", elsewhere: []) == "LIM HOLDINGS")
        // Not a confusion a recogniser makes (`MARK` is a name), a plural, a word that is in the lexicon itself.
        #expect(ReceiptExtractor.repairedName("MARK TRADING", elsewhere: []) == "MARK TRADING")
        #expect(ReceiptExtractor.repairedName("ARTRANGE STATIONERS", elsewhere: []) == "ARTRANGE STATIONERS")
        #expect(ReceiptExtractor.repairedName("CAFE HOME", elsewhere: []) == "CAFE HOME")
    }

    @Test func aBracketReadAsALetterIsPutBackWhereItsPartnerIsMissing() {
        let address = ["NO 5, JALAN SERI INDAH, SERI ALAM"]
        #expect(ReceiptExtractor.bracketsRead("MAJU ENTERPRISE ISERI ALAM) SDN BHD", elsewhere: address) == "MAJU ENTERPRISE (SERI ALAM) SDN BHD")
        #expect(ReceiptExtractor.bracketsRead("MAJU ENTERPRISE (SERI ALAMI SDN BHD", elsewhere: address) == "MAJU ENTERPRISE (SERI ALAM) SDN BHD")
        // The word may itself be one look-alike letter off (the name's repair puts it right after).
        #expect(ReceiptExtractor.bracketsRead("MAJU ENTERPRISE (SERI ALAHI SDN BHD", elsewhere: address) == "MAJU ENTERPRISE (SERI ALAH) SDN BHD")
        let text = "MAJU ENTERPRISE (SERI\nALAHISDNBHD\n822737-X\nNO 5, JALAN SERI INDAH, SERI ALAM\nTEL:012-6651783"
        #expect(extractor.extract(text: text, hints: malaysia).vendor?.value == "MAJU ENTERPRISE (SERI ALAM) SDN BHD")
        // Left alone: brackets that pair, and a word not said elsewhere.
        #expect(ReceiptExtractor.bracketsRead("MAJU (SERI ALAMI) SDN BHD", elsewhere: address) == "MAJU (SERI ALAMI) SDN BHD")
        #expect(ReceiptExtractor.bracketsRead("MAJU ISTANA) SDN BHD", elsewhere: address) == "MAJU ISTANA) SDN BHD")
    }

    @Test func aNameIsNotRepairedFromALineTheRecogniserIsLessSureOf() {
        let lines = [
            RecognizedLine(text: "GOARDIAN PHARMACY", box: TextBox(x: 10, y: 10, width: 300, height: 30), confidence: 0.95),
            RecognizedLine(text: "NO 3, JALAN MAWAR 2", box: TextBox(x: 10, y: 50, width: 300, height: 30), confidence: 0.95),
            RecognizedLine(text: "GUARDIAN", box: TextBox(x: 10, y: 400, width: 200, height: 30), confidence: 0.6),
        ]
        let reading = extractor.extract(RecognizedText(lines: lines), hints: malaysia)
        #expect(reading.vendor?.value == "GOARDIAN PHARMACY")
    }

    @Test func wordsOfOneRowWhoseBoxesOverlapALittleAreOneLine() {
        // A detector drew the first word's box a little wide, over the start of the second.
        func word(_ text: String, x: Int, width: Int, y: Int) -> RecognizedLine {
            RecognizedLine(text: text, box: TextBox(x: x, y: y, width: width, height: 38), confidence: 0.99)
        }
        let rows = ReceiptExtractor.rows([word("SERI", x: 190, width: 309, y: 285), word("MAWAR", x: 483, width: 230, y: 284)])
        #expect(rows.map(\.text) == ["SERI MAWAR"])
        // Boxes over each other by more than half a line's height are not side by side.
        let apart = ReceiptExtractor.rows([word("SERI", x: 190, width: 309, y: 285), word("MAWAR", x: 440, width: 230, y: 284)])
        #expect(apart.count == 2)
    }

    // MARK: Address

    @Test func theCountryEndsTheAddress() {
        let text = """
            KEDAI BUKU CAHAYA SDN BHD
            NO 8, JALAN MERBAU 3
            56000 KUALA LUMPUR, MALAYSIA
            MIDVALLEY MEGAMALL
            TEL : 03-9201 6281
            """
        #expect(extractor.extract(text: text, hints: malaysia).address?.value == "NO 8, JALAN MERBAU 3 56000 KUALA LUMPUR, MALAYSIA")
        // Without a country the lines after the postcode stay (place names are not a closed list).
        let open = "KEDAI BUKU CAHAYA\nNO.17, JALAN BESAR,\n39100 BRINCHANG,\nCAMERON HIGHLANDS,\nPAHANG\nGST REG.:002120876032"
        #expect(squeezed(extractor.extract(text: open, hints: malaysia).address?.value) == "NO17JALANBESAR39100BRINCHANGCAMERONHIGHLANDSPAHANG")
    }

    @Test func aLabelledCodeAfterTheAddressIsNotPartOfIt() {
        for code in ["SITE: 2591", "STATION : 0427", "INV NO # : BWMC02000047293"] {
            let text = "PETRO KIOSK MAJU\nLOT 1987 TMN SIERRA\n81750 MASAI JOHOR\n\(code)\nRECEIPT"
            #expect(extractor.extract(text: text, hints: malaysia).address?.value == "LOT 1987 TMN SIERRA 81750 MASAI JOHOR", "\(code)")
        }
    }

    @Test func aHouseNumberWithFewLettersStartsTheAddressAndIsNoRegistrationNumber() {
        let text = "MINI MARKET SETIA\nBR NO.: 0195932-X\nNO 43-45-47G,\nTAMAN SEJATI,\n45600 BESTARI JAYA\n03-3279 1851"
        #expect(extractor.extract(text: text, hints: malaysia).address?.value == "NO 43-45-47G, TAMAN SEJATI, 45600 BESTARI JAYA")
    }

    @Test func lookAlikesInAnAddressArePutRight() {
        #expect(ReceiptExtractor.repairedAddress("LOT P.T. 28I1, JALAN ANGSA 411SO KLANG") == "LOT P.T. 2811, JALAN ANGSA 41150 KLANG")
        #expect(ReceiptExtractor.repairedAddress("No 8,Ja1an 7/118B, 5600o Kuala Lumpur") == "No 8,Jalan 7/118B, 56000 Kuala Lumpur")
        #expect(ReceiptExtractor.repairedAddress("LOT 2B11, TANAN MERANTI, SELAMGOR") == "LOT 2811, TAMAN MERANTI, SELANGOR")
        // Left alone: a letter after a number (`7/118B`, `29M`), a word with a neighbour glued on, codes of letters.
        #expect(ReceiptExtractor.repairedAddress("NO.29M, SEKSYENU3, SELANGORD.E") == "NO.29M, SEKSYENU3, SELANGORD.E")
        #expect(ReceiptExtractor.repairedAddress("BLK G, JLN PJU 1A/3, 47301 PJ") == "BLK G, JLN PJU 1A/3, 47301 PJ")
        // Only a recogniser's look-alikes: a street may be named after a place (`PINANG`), a word spelt another way.
        #expect(ReceiptExtractor.repairedAddress("NO 21, JALAN PINANG, COMPLEKS SRI GAYA") == "NO 21, JALAN PINANG, COMPLEKS SRI GAYA")
        let text = "KEDAI MAJU\nLOT 2B11, TANAN MERANTI\n411SO KLANG, SELAMGOR\nTEL 03-3279 1851"
        #expect(extractor.extract(text: text, hints: malaysia).address?.value == "LOT 2811, TAMAN MERANTI 41150 KLANG, SELANGOR")
    }

    @Test func theBranchNameAboveItsAddressIsLeftOut() {
        let branch = """
            HEALTHY LIVING PHARMACY SDN BHD
            BANDAR BARU SELAYANG
            NO 15 JALAN BANDAR SELAYANG 10
            BANDAR BARU SELAYANG
            TEL:03-60932032
            """
        #expect(extractor.extract(text: branch, hints: malaysia).address?.value == "NO 15 JALAN BANDAR SELAYANG 10 BANDAR BARU SELAYANG")
        // A building's name is part of the address: its words do not come again below it.
        let building = "HEALTHY LIVING PHARMACY SDN BHD\nWISMA CEMPAKA\nNO 3, JALAN MAWAR 2\n47400 PETALING JAYA\nTEL:03-60932032"
        #expect(extractor.extract(text: building, hints: malaysia).address?.value == "WISMA CEMPAKA NO 3, JALAN MAWAR 2 47400 PETALING JAYA")
        // Nor a first line that names the street: it is the address.
        let street = "KEDAI MAJU\nJALAN LOKE YEW BENTONG\n90 GROUND FLOOR JALAN BENTONG\nTEL:09-2223344"
        #expect(extractor.extract(text: street, hints: malaysia).address?.value == "JALAN LOKE YEW BENTONG 90 GROUND FLOOR JALAN BENTONG")
    }

    @Test func aDigitPrintedForALetterInAStreetWordIsReadAsTheLetter() {
        // `Leve1` is read as LEVEL, so the line is the address's first (it was passed over as a name line).
        let text = "KEDAI MAJU SDN BHD\n(123456-X)\nLeve1 6, Wisma Cempaka\nNo.3, Ja1an SS2/39, 47400 Peta1ing Jaya\nTEL 03-3279 1851"
        #expect(extractor.extract(text: text, hints: malaysia).address?.value == "Level 6, Wisma Cempaka No.3, Jalan SS2/39, 47400 Petaling Jaya")
        #expect(ReceiptExtractor.lookalikesRead("GROUND FL00R, AEON Ma11, L0T 5, 5DN BHD") == "GROUND FLOOR, AEON Mall, LOT 5, SDN BHD")
        // Left alone: codes and numbers, and words whose reading is no lexicon word.
        #expect(ReceiptExtractor.lookalikesRead("LOT 1851-A, KPB6, U13/X, SS21, NO1, B10, TEL1, G1.116A") == "LOT 1851-A, KPB6, U13/X, SS21, NO1, B10, TEL1, G1.116A")
    }

    @Test func aStreetWordWithALookAlikeDigitAndItsNumberGluedOnIsReadAsTheWordAndTheNumber() {
        // `Leve16` is `Level 6` with the space lost: the line is the address's first, and it reads `Level6`.
        let text = "KEDAI MAJU SDN BHD\n(123456-X)\nLeve16,Bangunan Cempaka\nNo.3,Jalan SS2/39,47400 Petaling Jaya\nTEL 03-3279 1851"
        #expect(extractor.extract(text: text, hints: malaysia).address?.value == "Level6,Bangunan Cempaka No.3,Jalan SS2/39,47400 Petaling Jaya")
        #expect(ReceiptExtractor.lookalikesRead("Leve116, L0T3, KPB6, SS21, B10") == "Level16, LOT3, KPB6, SS21, B10")
    }

    @Test func linesRightAboveTheAddressThatEndWithACommaOrHoldTwoArePartOfIt() {
        // No street word, postcode or house number was read in them (glued, or a lot's letter after LOT), but the commas
        // say they run on into the address below.
        let rest = "RIMBA REST STOP\nLOTR7,KWSREHAT SEROJA,\nSIMPANG TIGA,\n84600 MUAR, JOHOR\nTEL 06-9781234"
        #expect(extractor.extract(text: rest, hints: malaysia).address?.value == "LOTR7,KWSREHAT SEROJA, SIMPANG TIGA, 84600 MUAR, JOHOR")
        let mall = "KEDAI MAJU SDN BHD\n(123456-X)\nUnitNO:5,LevelG2,Cahaya Suria\nDamai.\nNo 1,Jalan Damai,50480 KL\nTEL 03-3279 1851"
        #expect(extractor.extract(text: mall, hints: malaysia).address?.value == "UnitNO:5,LevelG2,Cahaya Suria Damai. No 1,Jalan Damai,50480 KL")
        // A branch's name above the address, with no comma, stays out.
        let branch = "KEDAI MAJU SDN BHD\nCahaya Suria Outlet\nNo 1,Jalan Damai,50480 KL\nTEL 03-3279 1851"
        #expect(extractor.extract(text: branch, hints: malaysia).address?.value == "No 1,Jalan Damai,50480 KL")
    }

    @Test func aPostcodeGluedToItsTownHasItsZerosBack() {
        #expect(ReceiptExtractor.repairedAddress("OFF JALAN PUDU, 5510OKUALA LUMPUR") == "OFF JALAN PUDU, 55100KUALA LUMPUR")
        #expect(ReceiptExtractor.repairedAddress("23/1, 4030oShahAlam, 400OOSHAH ALAM") == "23/1, 40300ShahAlam, 40000SHAH ALAM")
        // Only O after three digits: the town's own letters, and other numbers, stay.
        #expect(ReceiptExtractor.repairedAddress("1234 OAK ROAD, 12OAKS, 47400PJ") == "1234 OAK ROAD, 12OAKS, 47400PJ")
    }

    @Test func aThreeLetterStreetWordOneLookAlikeOffIsPutRight() {
        #expect(ReceiptExtractor.repairedAddress("LUT 1504, IMN SUBANG JASA, JIn PJU 1A/3") == "LOT 1504, TMN SUBANG JASA, Jln PJU 1A/3")
        // Other three-letter words are not guessed at (`FIR` is one look-alike from `FLR`).
        #expect(ReceiptExtractor.repairedAddress("12 FIR ST, OAK LN, JIM LOT") == "12 FIR ST, OAK LN, JIM LOT")
    }

    @Test func wordsGluedTogetherAreRepairedOneByOneWhereTheCaseChanges() {
        // A capital after a small letter is where the recogniser dropped a space: `BIk` + `G`, `JIn` + `PJU`, `Jalar` + `Mawar`.
        #expect(ReceiptExtractor.repairedAddress("No:G3,BIkG,JInPJU1A3,JalarMawar") == "No:G3,BlkG,JlnPJU1A3,JalanMawar")
    }

    @Test func anAddressWordIsPutRightByWhatTheHeaderSaysMoreOften() {
        // A digit for a letter, the word printed elsewhere in the header.
        let text = "KEDAI MAJU SDN BHD\nNO 15 JALAN BANDAR KENANGA 10\nBANDAR BARU KENAN6A\nTEL:03-60952052"
        #expect(extractor.extract(text: text, hints: malaysia).address?.value == "NO 15 JALAN BANDAR KENANGA 10 BANDAR BARU KENANGA")
        // One look-alike letter off a word said more often (here also in the name, glued to its legal form).
        let header = ["KEDAI MAJU (SETIA ALAMSDNBHD", "NO 5, JALAN SET1A INDAH, SETIA ALAM,", "40170 SHAH ALAN"]
        #expect(ReceiptExtractor.saidAgainInHeader("NO 5, JALAN SET1A INDAH, SETIA ALAM, 40170 Shah Alan", header: header)
            == "NO 5, JALAN SETIA INDAH, SETIA ALAM, 40170 Shah Alam")
        // Left alone when the other word is said no more often, and codes whose digits read as no word said.
        #expect(ReceiptExtractor.saidAgainInHeader("SETIA ALAM, SHAH ALAN, SS21, PJU1A", header: ["SETIA ALAM, SHAH ALAN, SS21, PJU1A"])
            == "SETIA ALAM, SHAH ALAN, SS21, PJU1A")
    }

    @Test func twoLookAlikeLettersBetweenDigitsAreDigits() {
        #expect(ReceiptExtractor.repairedAddress("41150 KLANG 1SS8-TMN MAWAR, LOT 28I1") == "41150 KLANG 1558-TMN MAWAR, LOT 2811")
        // Not three, nor letters beside a code's letters.
        #expect(ReceiptExtractor.repairedAddress("12SSS3, SS21, U13/X") == "12SSS3, SS21, U13/X")
    }

    @Test func signsAndLettersAroundHouseNumbersReadAsTheyLookAlike() {
        // `&` between two shop lots read as 8 or S; a lone I after NO; `10T` before a number.
        #expect(ReceiptExtractor.repairedAddress("NO.31G833G, NO.12AS14A, NO.I,TAMAN MAWAR, 10T 1851-A")
            == "NO.31G&33G, NO.12A&14A, NO.1,TAMAN MAWAR, LOT 1851-A")
        // Left alone: a lot with one letter, a word after NO, a number ending in T.
        #expect(ReceiptExtractor.repairedAddress("NO.31G, NO ISLAND, 10T BLOCK") == "NO.31G, NO ISLAND, 10T BLOCK")
    }

    @Test func aLetterPrintedTwiceIsPutRightByTheWordTheHeaderSays() {
        let header = ["NO3,JALANPERMAS 10/8,", "BANDAR BARUPERRMASJAYA"]
        #expect(ReceiptExtractor.saidAgainInHeader("Bandar BaruPerrmasJaya", header: header) == "Bandar BaruPermasJaya")
        #expect(ReceiptExtractor.saidAgainInHeader("JALAN PERRY", header: ["JALAN PERRY"]) == "JALAN PERRY")
    }

    @Test func aLotNumberWithLettersGluedToLotIsAHouseNumber() {
        // `LotF/L2A.4` starts the address, so the place's name above it, said again below, is left out as a branch name.
        let text = "KEDAI MAJU SDN BHD\nCahaya Suria Theme Park\nLotF/L2A.4,Level 2A\nCahaya Suria Plaza, Cahaya Suria\nTEL 03-1234567"
        #expect(extractor.extract(text: text, hints: malaysia).address?.value == "LotF/L2A.4,Level 2A Cahaya Suria Plaza, Cahaya Suria")
    }

    @Test func theAddressMayFollowAPhoneAnIdAndThreeOtherLines() {
        let text = """
            GERBANG MAJU RESTAURANTS SDN BHD
            (65351-M)
            formerly known as
            CAHAYA RESTAURANTS SDN BHD
            Licensee of Nasi Sedap
            Level 6, Bangunan Cempaka
            No.3, Jalan SS2/39, 47400 Petaling Jaya
            TEL 03-9010 9849
            """
        #expect(extractor.extract(text: text, hints: malaysia).address?.value == "Level 6, Bangunan Cempaka No.3, Jalan SS2/39, 47400 Petaling Jaya")
        // A registration number glued on by the recogniser, before the address, is passed over too.
        let glued = "KEDAI MAJU SDN BHD\nGSTReg.1o.:000155453440\nNO 8, JALAN MERBAU 3\n56000 KUALA LUMPUR\nTEL 03-9201 6281"
        #expect(extractor.extract(text: glued, hints: malaysia).address?.value == "NO 8, JALAN MERBAU 3 56000 KUALA LUMPUR")
        // Four lines that are no address: the header has none.
        let none = "KEDAI MAJU SDN BHD\nONE\nTWO\nTHREE\nFOUR\nNO 8, JALAN MERBAU 3\nTEL 03-9201 6281"
        #expect(extractor.extract(text: none, hints: malaysia).address == nil)
    }

    @Test func aTaxIdLabelGluedTogetherEndsTheAddressEvenWithoutItsNumber() {
        // The recogniser dropped the spaces (`GSTID:`) and the number went to a line of its own.
        let text = "RESTORAN MAWAR\nNO.3&5,JALANMAWAR11,\n81750MASAI,\nJOHOR\nGSTID:\n000123456789\nTAXINVOICE"
        #expect(extractor.extract(text: text, hints: malaysia).address?.value == "NO.3&5,JALANMAWAR11, 81750MASAI, JOHOR")
    }

    @Test func aBranchNumberAndNameBelowTheAddressArePartOfIt() {
        // `1245-DESA JAYA`, the outlet's number and name before the tax id, is no registration number.
        let text = "KEDAI MAJU S/B (519537-X)\nLOT 12, JALAN MAWAR\n41150 KLANG, SELANGOR\n1245-DESA JAYA\nGST ID. NO : 000181747712"
        #expect(extractor.extract(text: text, hints: malaysia).address?.value == "LOT 12, JALAN MAWAR 41150 KLANG, SELANGOR 1245-DESA JAYA")
        // A registration number alone on its line still ends the address.
        for id in ["(123456-X)", "002043319-W", "0195932-X-01"] {
            let registered = "KEDAI MAJU S/B\nLOT 12, JALAN MAWAR\n41150 KLANG, SELANGOR\n\(id)\nRECEIPT"
            #expect(extractor.extract(text: registered, hints: malaysia).address?.value == "LOT 12, JALAN MAWAR 41150 KLANG, SELANGOR", "\(id)")
        }
    }

    @Test func aHouseNumberGluedToItsWordStartsTheAddress() {
        let text = "MINI MARKET SETIA\nBRNo.:0195932-X\nNO43-45-47G,\nTAMANSEJATI\n45600 BESTARI JAYA\nGST No.:001601310720"
        #expect(extractor.extract(text: text, hints: malaysia).address?.value == "NO43-45-47G, TAMANSEJATI 45600 BESTARI JAYA")
        // A word that only begins with one is no house number.
        #expect(extractor.extract(text: "KEDAI MAJU\nNOTICE 12\nJALAN MAWAR 3\nTEL 03-3279 1851", hints: malaysia).address?.value == "JALAN MAWAR 3")
    }

    @Test func aPhoneLabelGluedToItsNumberIsNoNameAndTheAddressIsReadWithoutOne() {
        // The name was a logo the recogniser did not read: the address is the block at the top, and the phone is no name.
        let text = "NO.41,JALAN SERI BINTANG 2\nTAMAN SRI BINTANG\n52100 KUALA LUMPUR\nTELN0:-012-6028832\nDate:11/03/18"
        let reading = extractor.extract(text: text, hints: malaysia)
        #expect(reading.vendor == nil)
        #expect(reading.address?.value == "NO.41,JALAN SERI BINTANG 2 TAMAN SRI BINTANG 52100 KUALA LUMPUR")
        #expect(extractor.extract(text: "KEDAI MAJU\nTe1 No.03-6092-1968\nNO 3, JALAN MAWAR", hints: malaysia).address?.value == "NO 3, JALAN MAWAR")
    }

    @Test func aBlankBelowTheAddressEndsIt() {
        func line(_ text: String, _ y: Int) -> RecognizedLine {
            RecognizedLine(text: text, box: TextBox(x: 10, y: y, width: 300, height: 30), confidence: 0.95)
        }
        let lines = [line("KEDAI MAJU SDN BHD", 10), line("NO 3, JALAN MAWAR 2", 45), line("47400 PETALING JAYA", 80),
                     line("TAXINVOICE NO", 170), line("5664", 205)]
        #expect(extractor.extract(RecognizedText(lines: lines), hints: malaysia).address?.value == "NO 3, JALAN MAWAR 2 47400 PETALING JAYA")
        // Lines set closer together are one block.
        let close = [line("KEDAI MAJU SDN BHD", 10), line("NO 3, JALAN MAWAR 2", 45), line("47400 PETALING JAYA", 80), line("SELANGOR", 120)]
        #expect(extractor.extract(RecognizedText(lines: close), hints: malaysia).address?.value == "NO 3, JALAN MAWAR 2 47400 PETALING JAYA SELANGOR")
    }

    @Test func anIOrLInANumberIsAOne() {
        #expect(ReceiptExtractor.repairedAddress("NO.I5, JALAN 7/ll8B, JALAN 7/i18B") == "NO.15, JALAN 7/118B, JALAN 7/118B")
        // Left alone: letters in a word glued to its number (`BIk` is put right as the street word it is).
        #expect(ReceiptExtractor.repairedAddress("Level1, BIk2, JIn PJU 1A/3") == "Level1, Blk2, Jln PJU 1A/3")
    }

    @Test func aCountryWithALetterLostStillEndsTheAddress() {
        let text = "KEDAI BUKU CAHAYA SDN BHD\nNO 8, JALAN MERBAU 3\n56000 KUALA LUMPUR, MALAYSI.\nIOI MALL\nTEL : 03-9201 6281"
        #expect(extractor.extract(text: text, hints: malaysia).address?.value == "NO 8, JALAN MERBAU 3 56000 KUALA LUMPUR, MALAYSI.")
    }

    @Test func aTitleBetweenTheNameAndTheAddressIsPassedOver() {
        let text = "PERNIAGAAN RIA\ngst:001662431232 1210644T\nTAX INVOICE\nNO7,JLN MAWAR,SHAH ALAM.\n1.00X21.32 21.32"
        #expect(extractor.extract(text: text, hints: malaysia).address?.value == "NO7,JLN MAWAR,SHAH ALAM.")
    }

    @Test func aCompanyNumberUnderAMisreadLabelIsNoAddressLine() {
        let text = "PETRO KIOSK MAJU\nConpany No:_JM0632980-V\nLot PTD 198718 Tmn Sierra\n81750 Masai Johor\nTelephone:073000190"
        #expect(extractor.extract(text: text, hints: malaysia).address?.value == "Lot PTD 198718 Tmn Sierra 81750 Masai Johor")
    }

    @Test func aDigitInsideAWordOfLettersIsTheLetterItLooksLike() {
        #expect(ReceiptExtractor.repairedAddress("LOT 2811, JALAN ANG5A, JALAN8ESAR, T0NGKAT") == "LOT 2811, JALAN ANGSA, JALANBESAR, TONGKAT")
        // Codes keep their digits.
        #expect(ReceiptExtractor.repairedAddress("SS5A, U13A, PJU1A, KPB6, 5A") == "SS5A, U13A, PJU1A, KPB6, 5A")
    }

    @Test func aNameIsPutRightByAFooterTheRecogniserGluedTogether() {
        // The footer's words run together; the name's word, a letter lost, is found inside them.
        #expect(ReceiptExtractor.repairedName("GARDEIA BAKERS", elsewhere: ["THERECIPIENTOFGARDENIA'SPRODUCTSIS"]) == "GARDENIA BAKERS")
        // Not when the word itself is in there, nor for short words.
        #expect(ReceiptExtractor.repairedName("GARDEIA BAKERS", elsewhere: ["THANKSFROMGARDEIAANDGARDENIA"]) == "GARDEIA BAKERS")
        #expect(ReceiptExtractor.repairedName("KEDAI MAJU", elsewhere: ["THANKYOUFORSHOPPINGATKEDAIMAJO"]) == "KEDAI MAJU")
        #expect(ReceiptExtractor.repairedName("BHPETROL PERMAS", elsewhere: ["THANKYOUFORSHOPPINGATBHPETROMART"]) == "BHPETROL PERMAS")
    }

    @Test func aLegalFormWithItsLastLetterMisreadIsPutRight() {
        #expect(ReceiptExtractor.cleanVendor("SOON FATT S/R") == "SOON FATT S/B")
        #expect(ReceiptExtractor.cleanVendor("KEDAI MAJU SUNBHD") == "KEDAI MAJU SDN BHD")
    }

    @Test func anOReadAsCOrAnEReadAsCInAStateIsPutRight() {
        #expect(ReceiptExtractor.repairedAddress("40300 SHAH ALAM, SELANGCR.") == "40300 SHAH ALAM, SELANGOR.")
        #expect(ReceiptExtractor.repairedAddress("41150 KLANG,SCLANGOR") == "41150 KLANG,SELANGOR")
    }
}
