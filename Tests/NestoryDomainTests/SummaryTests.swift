import Foundation
import Testing
@testable import NestoryDomain

@Suite struct RoomCountTests {
    /// A house with more rooms than bars: the rooms with fewest items share the last bar, so the bars still add up to
    /// every item, and "No room" keeps its own (by its id in the app, by its name in a report, which has no ids).
    @Test func everyItemIsInABarWhenThereAreMoreRoomsThanBars() {
        let counts = [30, 20, 12, 9, 8, 7, 6, 5, 4, 3, 2, 2, 1, 1]
        for ids in [true, false] {
            var rooms = counts.enumerated().map { RoomCount(roomID: ids ? RoomID() : nil, name: "Room \($0.offset + 1)", itemCount: $0.element) }
            rooms.insert(RoomCount(roomID: nil, name: RoomCount.unassignedName, itemCount: 3), at: 10)
            let bars = RoomCount.bars(rooms)
            #expect(bars.count == RoomCount.barLimit)
            let barsTotal: Int = bars.map(\.itemCount).reduce(0, +)
            let itemsTotal: Int = counts.reduce(0, +) + 3
            #expect(barsTotal == itemsTotal)
            #expect(bars.map(\.name) == (1...8).map { "Room \($0)" } + ["No room", "6 other rooms"])
            #expect(bars.last?.itemCount == 13)  // 4 + 3 + 2 + 2 + 1 + 1

            // As many as there are bars, or fewer: each its own. Without "No room": nine rooms and the rest.
            #expect(RoomCount.bars(Array(rooms.prefix(10))) == Array(rooms.prefix(10)))
            let named = RoomCount.bars(rooms.filter { !$0.isUnassigned })
            #expect(named.map(\.name) == (1...9).map { "Room \($0)" } + ["5 other rooms"])
        }
    }
}

@Suite struct CategoryValueTests {
    /// The donut's slices: categories with a value, the first eight each their own, the rest together.
    @Test func theSmallestCategoriesShareOneSlice() throws {
        let values = try (1...11).map { index in
            CategoryValue(categoryID: CategoryID(), name: "C\(index)", colorHex: "#000000",
                          value: try Money(minorUnits: Int64(12 - index) * 100, currency: .usd), itemCount: 2)
        } + [CategoryValue(categoryID: nil, name: "Nothing", colorHex: "#000000", value: try Money(minorUnits: 0, currency: .usd), itemCount: 1)]
        let slices = CategoryValue.slices(values)
        #expect(slices.map(\.name) == (1...8).map { "C\($0)" } + ["Other categories"])
        #expect(slices.last?.value == (try Money(minorUnits: 600, currency: .usd)) && slices.last?.itemCount == 6)  // 3 + 2 + 1 dollars
        #expect(CategoryValue.slices(Array(values.prefix(8))) == Array(values.prefix(8)))
        #expect(CategoryValue.slices([values[11]]).isEmpty)
    }
}
