import Foundation
import NestoryDomain
import Testing
@testable import NestoryImport

@Suite("CSV parsing")
struct CSVTests {
    @Test("quotes, doubled quotes, line breaks inside fields, CRLF, and the line each record starts on")
    func quoting() throws {
        let text = "Name,Notes,Price\r\n\"Sofa, grey\",\"He said \"\"comfy\"\"\nand\r\nsoft\",10\r\nLamp,,5"
        let table = try CSV.parse(Data(text.utf8))
        #expect(table.header == ["Name", "Notes", "Price"])
        #expect(table.rows.map(\.fields) == [["Sofa, grey", "He said \"comfy\"\nand\r\nsoft", "10"], ["Lamp", "", "5"]])
        #expect(table.rows.map(\.line) == [2, 5])
    }

    @Test("a byte order mark, semicolons, tabs and blank lines")
    func delimitersAndBOM() throws {
        let semicolons = try CSV.parse(Data([0xEF, 0xBB, 0xBF] + Array("Name;Price\n\nSofa;1,50\n\n".utf8)))
        #expect(semicolons.header == ["Name", "Price"])
        #expect(semicolons.delimiter == ";")
        #expect(semicolons.rows.map(\.fields) == [["Sofa", "1,50"]])
        #expect(semicolons.rows[0].line == 3)
        let tabs = try CSV.parse(Data("Name\tPrice\nSofa\t2\n".utf8))
        #expect(tabs.delimiter == "\t")
        #expect(tabs.rows[0].fields == ["Sofa", "2"])
    }

    @Test("Windows-1252 text from a spreadsheet is read, not rejected")
    func windows1252() throws {
        let table = try CSV.parse(Data(Array("Name\nCaf".utf8) + [0xE9, 0x20, 0x80]))
        #expect(table.rows[0].fields == ["Café €"])
        #expect(table.decodedAsWindows1252)
    }

    @Test("a workbook, UTF-16 text or a picture is named for what it is, not read as a table")
    func notCSV() throws {
        #expect(throws: CSVError.workbook) { try CSV.parse(Data([0x50, 0x4B, 0x03, 0x04, 0x14, 0x00]) + Data("xl/workbook.xml".utf8)) }
        #expect(throws: CSVError.workbook) { try CSV.parse(Data([0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1, 0x00])) }
        #expect(throws: CSVError.notText) { try CSV.parse(Data([0xFF, 0xFE] + Array("name\nLamp\n".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })) }
        #expect(throws: CSVError.notText) { try CSV.parse(Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D])) }
        // Text past the first 4 KB is not looked at for this: a CSV file is still read as one.
        #expect(try CSV.parse(Data("name\n".utf8 + Array(repeating: UInt8(ascii: "a"), count: 5000) + [0x0A])).rows.count == 1)
    }

    @Test("an unclosed quote, and an empty file")
    func errors() {
        #expect(throws: CSVError.unterminatedQuote(line: 2)) { try CSV.parse(Data("Name\n\"open\nstill".utf8)) }
        #expect(throws: CSVError.empty) { try CSV.parse(Data()) }
        #expect(throws: CSVError.empty) { try CSV.parse(Data("\n\n".utf8)) }
    }
}

@Suite("Values as people type them")
struct ValueParsingTests {
    @Test("amounts", arguments: [
        ("12.50", "12.50"), ("$1,234.56", "1234.56"), ("1.234,56 €", "1234.56"), ("12,50", "12.50"), ("1,234", "1234"),
        ("EUR 99", "99"), ("1 299,00", "1299.00"), ("CHF 1'250.50", "1250.50"), ("0", "0"), ("₹1,23,456.00", "123456.00"),
    ])
    func amounts(_ raw: String, _ expected: String) throws {
        #expect(try ValueParsing.amount(raw).get() == expected)
    }

    @Test("not amounts", arguments: ["-12.50", "(5.00)", "abc", "12 apples", "1.2.3,4,5", "", "12,34.5"])
    func notAmounts(_ raw: String) {
        #expect((try? ValueParsing.amount(raw).get()) == nil)
    }

    @Test("dates")
    func dates() throws {
        let d = try CalendarDate(iso: "2024-03-31")
        #expect(ValueParsing.date("2024-03-31", order: .mdy) == d)
        #expect(ValueParsing.date("2024/03/31", order: .mdy) == d)
        #expect(ValueParsing.date("2024-03-31T10:00:00Z", order: .mdy) == d)
        #expect(ValueParsing.date("31.03.2024", order: .mdy) == d)
        #expect(ValueParsing.date("03/31/2024", order: .mdy) == d)
        #expect(ValueParsing.date("31/03/2024", order: .mdy) == d)  // 31 cannot be a month
        #expect(ValueParsing.date("04/03/2024", order: .dmy) == (try CalendarDate(iso: "2024-03-04")))
        #expect(ValueParsing.date("04/03/2024", order: .mdy) == (try CalendarDate(iso: "2024-04-03")))
        for bad in ["2024-02-30", "2023-13-01", "yesterday", "12/2024", "1/2/24"] {
            #expect(ValueParsing.date(bad, order: .mdy) == nil, "\(bad)")
        }
    }
}

@Suite("Items from CSV rows")
struct ItemImportTests {
    let options = ImportOptions(currency: .usd, today: try! CalendarDate(iso: "2026-11-22"))

    @Test("columns are guessed from the header, values land in their fields")
    func guessed() throws {
        let csv = """
            Item Name,Manufacturer,Model,Serial Number,Cost,Currency,Date Purchased,Location,Category,Labels,Notes,Qty,Condition
            Sofa,IKEA,KIVIK,SN-1,"1,299.00",,2024-03-31,Living Room,Furniture,"home; big",Grey,1,like new
            Kettle,Bosch,,,"49,90",EUR,31.12.2023,Kitchen,,,,"2",used
            """
        let table = try CSV.parse(Data(csv.utf8))
        let mapping = ColumnMapping.guess(header: table.header)
        #expect(mapping.columns[.name] == 0 && mapping.columns[.price] == 4 && mapping.columns[.room] == 7 && mapping.columns[.tags] == 9)
        let items = try ItemImport.items(from: table, mapping: mapping, options: options)
        #expect(items.count == 2)
        let sofa = items[0]
        #expect(sofa.draft.name == "Sofa" && sofa.draft.brand == "IKEA" && sofa.draft.modelNumber == "KIVIK" && sofa.draft.serialNumber == "SN-1")
        #expect(sofa.draft.purchasePrice == (try Money.parse("1299.00", currency: .usd)))
        #expect(sofa.draft.purchaseDate == (try CalendarDate(iso: "2024-03-31")))
        #expect(sofa.roomName == "Living Room" && sofa.categoryName == "Furniture")
        #expect(sofa.draft.tags == ["home", "big"])
        #expect(sofa.draft.condition == .likeNew)
        let kettle = items[1]
        #expect(kettle.draft.currency == (try CurrencyCode("EUR")))
        #expect(kettle.draft.purchasePrice == (try Money.parse("49.90", currency: try CurrencyCode("EUR"))))
        #expect(kettle.draft.quantity == 2 && kettle.draft.condition == .good && kettle.categoryName == nil)
    }

    @Test("an explicit mapping by header name or column number")
    func explicitMapping() throws {
        let table = try CSV.parse(Data("A,B,C\nLamp,12,Hall\n".utf8))
        let mapping = try ColumnMapping.parse("name=A,price=2,room=C", header: table.header)
        let items = try ItemImport.items(from: table, mapping: mapping, options: options)
        #expect(items[0].draft.name == "Lamp" && items[0].draft.purchasePrice?.minorUnits == 1200 && items[0].roomName == "Hall")
        #expect(throws: ImportError.self) { try ColumnMapping.parse("name=Missing", header: table.header) }
        #expect(throws: ImportError.self) { try ColumnMapping.parse("colour=A", header: table.header) }
        #expect(throws: ImportError.noNameColumn) { try ItemImport.items(from: table, mapping: ColumnMapping(), options: options) }
    }

    @Test("every bad row is reported with its line, and nothing is returned")
    func rowErrors() throws {
        let csv = "Name,Price,Date,Qty\nGood,1.00,2024-01-01,1\n,2.00,,\nBad price,-12.50,,\nBad date,,2024-02-30,\nWrong count,1\nFuture,,2030-01-01,\nZero,,,0\n"
        let table = try CSV.parse(Data(csv.utf8))
        let error = #expect(throws: ImportError.self) {
            try ItemImport.items(from: table, mapping: ColumnMapping.guess(header: table.header), options: options)
        }
        guard case .rows(let rows) = error else { Issue.record("\(String(describing: error))"); return }
        #expect(rows.map(\.line) == [3, 4, 5, 6, 7, 8])
        #expect(rows[0].column == "name")
        #expect(rows[1].column == "Price" && rows[1].message.contains("negative"))
        #expect(rows[3].message.contains("2 fields"))
        #expect(rows[4].message.contains("future"))
    }

    @Test("spreadsheet values that look like formulas are imported as the text they are")
    func formulaText() throws {
        let table = try CSV.parse(Data("Name,Notes\n\"=HYPERLINK(\"\"x\"\")\",+1 spare\n".utf8))
        let items = try ItemImport.items(from: table, mapping: ColumnMapping.guess(header: table.header), options: options)
        #expect(items[0].draft.name == "=HYPERLINK(\"x\")" && items[0].draft.notes == "+1 spare")
    }

    @Test("a spreadsheet-safe export's apostrophe before formula-like text is not part of the text")
    func protectedText() throws {
        let csv = "Name,Notes,Brand\n'=HYPERLINK(1),'-2 spare\t,'@home\n'Tis a lamp, '+1 ,O'Brien\n"
        let table = try CSV.parse(Data(csv.utf8))
        let items = try ItemImport.items(from: table, mapping: ColumnMapping.guess(header: table.header), options: options)
        #expect(items[0].draft.name == "=HYPERLINK(1)" && items[0].draft.notes == "-2 spare" && items[0].draft.brand == "@home")
        #expect(items[1].draft.name == "'Tis a lamp" && items[1].draft.notes == "+1" && items[1].draft.brand == "O'Brien")
    }

    /// The columns of Nestory's own CSV export (InventoryExport) that describe the item are all read back: an export
    /// imported elsewhere kept everything but its prices and condition notes.
    @Test("Nestory's own export's columns")
    func ownExport() throws {
        let csv = """
            id,name,brand,model_number,serial_number,barcode,quantity,unit_price,total_value,currency,purchase_date,warranty_expiry,condition,condition_notes,room,category,tags,notes,photo_count
            0b6f,Sofa,IKEA,KIVIK,SN-1,4006381333931,2,649.50,1299.00,EUR,2024-03-31,2027-03-31,like_new,Small tear on the left arm,Living Room,Furniture,home; big,Grey,3
            """
        let table = try CSV.parse(Data(csv.utf8))
        let mapping = ColumnMapping.guess(header: table.header)
        #expect(mapping.columns[.price] == 7 && mapping.columns[.conditionNotes] == 13 && mapping.columns[.condition] == 12)
        let sofa = try #require(try ItemImport.items(from: table, mapping: mapping, options: options).first)
        #expect(sofa.draft.purchasePrice == (try Money.parse("649.50", currency: try CurrencyCode("EUR"))))
        #expect(sofa.draft.quantity == 2)
        #expect(sofa.draft.conditionNotes == "Small tear on the left arm" && sofa.draft.condition == .likeNew)
        #expect(sofa.draft.warrantyExpiry == (try CalendarDate(iso: "2027-03-31")))
        #expect(sofa.draft.barcode == "4006381333931")
        #expect(sofa.draft.tags == ["home", "big"] && sofa.roomName == "Living Room" && sofa.categoryName == "Furniture")
    }
}

@Suite("Homebox import")
struct HomeboxImportTests {
    let options = ImportOptions(currency: .usd, today: try! CalendarDate(iso: "2026-11-22"))

    /// A Homebox export written by hand with every column.
    static let export = """
        HB.import_ref,HB.location,HB.labels,HB.asset_id,HB.archived,HB.name,HB.quantity,HB.description,HB.insured,HB.notes,HB.purchase_price,HB.purchase_from,HB.purchase_time,HB.manufacturer,HB.model_number,HB.serial_number,HB.lifetime_warranty,HB.warranty_expires,HB.warranty_details,HB.sold_to,HB.sold_price,HB.sold_time,HB.sold_notes,HB.field.Color,HB.field.Voltage
        ref-1,Garage,Tools;Power,000-001,false,Cordless Drill,1,18V drill with two batteries,true,Keep charged,129.99,Home Depot,2023-05-14,DeWalt,DCD771C2,SN12345,false,2026-05-14,3-year limited,,0,0001-01-01,,Yellow,18V
        ref-2,Living Room,Electronics,000-002,true,Old TV,2,,false,,0,,0001-01-01,Sony,KDL-40,,true,0001-01-01,,Jane Doe,150.00,2024-01-10,Sold on Craigslist,,
        """

    @Test("every Homebox column lands in a field, a tag or the notes")
    func everyColumn() throws {
        let table = try CSV.parse(Data(Self.export.utf8))
        #expect(HomeboxImport.isHomebox(table.header))
        let items = try ItemImport.items(from: table, mapping: ColumnMapping(), options: options)
        #expect(items.count == 2)
        let drill = items[0]
        #expect(drill.draft.name == "Cordless Drill")
        #expect(drill.roomName == "Garage")
        #expect(drill.draft.brand == "DeWalt" && drill.draft.modelNumber == "DCD771C2" && drill.draft.serialNumber == "SN12345")
        #expect(drill.draft.purchasePrice == (try Money.parse("129.99", currency: .usd)))
        #expect(drill.draft.purchaseDate == (try CalendarDate(iso: "2023-05-14")))
        #expect(drill.draft.warrantyExpiry == (try CalendarDate(iso: "2026-05-14")))
        #expect(drill.draft.tags == ["Tools", "Power", "insured"])
        let notes = drill.draft.notes ?? ""
        for part in ["18V drill with two batteries", "Keep charged", "Purchased from: Home Depot", "Warranty: 3-year limited",
                     "Asset ID: 000-001", "Color: Yellow", "Voltage: 18V", "Homebox import ref: ref-1"] {
            #expect(notes.contains(part), "notes lack \(part)")
        }
        #expect(!notes.contains("Sold"))
        let tv = items[1]
        #expect(tv.draft.quantity == 2)
        #expect(tv.draft.purchasePrice == nil && tv.draft.purchaseDate == nil && tv.draft.warrantyExpiry == nil)
        #expect(tv.draft.tags == ["Electronics", "archived"])
        #expect(tv.draft.notes?.contains("Lifetime warranty") == true)
        #expect(tv.draft.notes?.contains("Sold to Jane Doe, on 2024-01-10, for 150.00, notes Sold on Craigslist") == true)
    }

    @Test("HB.tags and HB.purchase_date, the other spellings")
    func otherSpellings() throws {
        let table = try CSV.parse(Data("HB.name,HB.tags,HB.purchase_date\nLamp,a;b,2022-01-02\n".utf8))
        let items = try ItemImport.items(from: table, mapping: ColumnMapping(), options: options)
        #expect(items[0].draft.tags == ["a", "b"])
        #expect(items[0].draft.purchaseDate == (try CalendarDate(iso: "2022-01-02")))
    }
}
