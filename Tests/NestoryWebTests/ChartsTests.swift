import Foundation
import NestoryDomain
import Testing
@testable import NestoryWeb

@Suite struct ChartsTests {
    /// The bars are RoomCount.bars': with more rooms than bars, the last is the rest's, in the picture and its text.
    @Test func theRoomBarsCountEveryItem() throws {
        let rooms = (1...12).map { RoomCount(roomID: RoomID(), name: "Room \($0)", itemCount: 20 - $0) }
        let html = Charts.bars(rooms).rendered
        #expect(html.components(separatedBy: "class=\"bar\"").count - 1 == RoomCount.barLimit)
        #expect(html.contains("Room 9: 11; 3 other rooms: 27</desc>") && html.contains(">3 other rooms</text>"))
    }
}
