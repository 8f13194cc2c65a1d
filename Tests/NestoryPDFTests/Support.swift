import Foundation
import NestoryDomain
import NestoryReports

typealias MemorySource = MemoryReportSource

/// An item for a report (the same fixture as the report tests').
func reportItem(_ name: String, price: String?, currency: CurrencyCode = .usd, quantity: Int = 1, room: String? = "Kitchen",
                category: String? = "Appliances", photo: Bool = true, serial: String? = nil, purchased: String? = nil) -> ReportItem {
    let household = HouseholdID()
    let draft = ItemDraft(name: name, serialNumber: serial, purchasePrice: price.map { try! Money.parse($0, currency: currency) },
                          purchaseDate: purchased.map { try! CalendarDate(iso: $0) }, currency: currency,
                          categoryID: category == nil ? nil : CategoryID(), roomID: room == nil ? nil : RoomID(), quantity: quantity)
    let item = Item(householdID: household, draft: draft, createdAt: Date(timeIntervalSince1970: 1_763_800_000))
    let photos = photo ? [ReportPhoto(url: URL(fileURLWithPath: "/nonexistent/\(name).jpg"), contentType: "image/jpeg", sha256: name)] : []
    return ReportItem(item: item, roomName: room, categoryName: category, photoCount: photos.count, receiptCount: 0, photos: photos)
}

/// The report header the tests use.
let header = ReportHeader(householdName: "The Smiths", currency: .usd, generatedAt: Date(timeIntervalSince1970: 1_763_800_000),
                          generatedOn: try! CalendarDate(iso: "2025-11-22"))

