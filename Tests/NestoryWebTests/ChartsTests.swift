import Foundation
import NestoryDomain
import Testing
@testable import NestoryWeb

@Suite struct ChartsTests {
    /// The bars' text alternative: "Name: count; …".
    static func bars(_ rooms: [RoomCount]) throws -> [(String, Int)] {
        let html = Charts.bars(rooms).rendered
        let start = try #require(html.range(of: "<desc id=\"bars-desc\">")).upperBound
        let end = try #require(html[start...].range(of: "</desc>")).lowerBound
        return html[start..<end].components(separatedBy: "; ").map {
            let parts = $0.components(separatedBy: ": ")
            return (parts[0], Int(parts[1]) ?? -1)
        }
    }

    /// A house with more rooms than bars: the rooms with fewest items share the last bar, so the bars still add up to
    /// every item, and "No room" keeps its own.
    @Test func everyItemIsInABarWhenThereAreMoreRoomsThanBars() throws {
        let counts = [30, 20, 12, 9, 8, 7, 6, 5, 4, 3, 2, 2, 1, 1]
        var rooms = counts.enumerated().map { RoomCount(roomID: RoomID(), name: "Room \($0.offset + 1)", itemCount: $0.element) }
        rooms.insert(RoomCount(roomID: nil, name: "No room", itemCount: 3), at: 10)
        let shown = try Self.bars(rooms)
        #expect(shown.count == Charts.barLimit)
        let barsTotal: Int = shown.map(\.1).reduce(0, +)
        let itemsTotal: Int = counts.reduce(0, +) + 3
        #expect(barsTotal == itemsTotal)
        #expect(shown.map(\.0) == (1...8).map { "Room \($0)" } + ["No room", "6 other rooms"])
        #expect(shown.last?.1 == 13)  // 4 + 3 + 2 + 2 + 1 + 1

        // As many rooms as bars, or fewer: each its own.
        let ten = Array(rooms.prefix(10))
        #expect(try Self.bars(ten).map(\.0) == ten.map(\.name))
        // Without "No room", nine rooms and the rest.
        let named = try Self.bars(rooms.filter { $0.roomID != nil })
        #expect(named.map(\.0) == (1...9).map { "Room \($0)" } + ["5 other rooms"])
    }
}
