import Foundation
import Testing
@testable import NestoryDomain

/// Identifiers are read and written thousands of times a second on the list: the direct path must
/// agree with Foundation's.
@Suite struct IdentifierTests {
    @Test func canonicalTextRoundTripsAndMatchesFoundation() throws {
        for _ in 0..<1000 {
            let uuid = UUID()
            let id = ItemID(uuid)
            #expect(id.description == uuid.uuidString.lowercased())
            #expect(ItemID(string: id.description) == id)
            #expect(ItemID(string: uuid.uuidString) == id)  // upper case still accepted (through Foundation)
        }
        #expect(ItemID(string: "00000000-0000-0000-0000-000000000000")?.rawValue == UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        #expect(ItemID(string: "ffffffff-ffff-ffff-ffff-ffffffffffff")?.description == "ffffffff-ffff-ffff-ffff-ffffffffffff")
    }

    /// JSON carries the stored form, so ids written by the API's records (a room) and by its hand-written answers (an
    /// item's roomID) compare as text; an id written in upper case (by an older version) is still read.
    @Test func jsonCarriesTheStoredForm() throws {
        let id = RoomID()
        let json = String(decoding: try JSONEncoder().encode([id]), as: UTF8.self)
        #expect(json == "[\"\(id.description)\"]")
        #expect(try JSONDecoder().decode([RoomID].self, from: Data(json.utf8)) == [id])
        #expect(try JSONDecoder().decode([RoomID].self, from: Data("[\"\(id.rawValue.uuidString)\"]".utf8)) == [id])
    }

    @Test(arguments: ["", "not a uuid", "1d5ad533-f4cc-4425-8258-66ee8442a2a", "1d5ad533-f4cc-4425-8258-66ee8442a2abc",
                      "1d5ad533f4cc-4425-8258-66ee8442a2ab-", "1d5ad533-f4cc-4425-8258-66ee8442a2ag", "1d5ad533_f4cc_4425_8258_66ee8442a2ab",
                      "{1d5ad533-f4cc-4425-8258-66ee8442a2ab}", "1d5ad533-f4cc-4425-8258-66ee8442a2a\u{e9}"])
    func malformedTextIsRefusedAsFoundationRefusesIt(_ text: String) {
        #expect(ItemID(string: text) == nil)
        #expect(UUID(uuidString: text) == nil)
    }
}
