// Seeds a household for `make bench-backup`: ITEMS items and PHOTOS distinct photos of KB kilobytes
// of incompressible bytes (as JPEG data is), spread over the items. The timing itself is done by
// scripts/bench-backup.sh around the `nestory` binary, beside zip and unzip.
import Foundation
import NestoryDomain
import NestoryStore

let arguments = CommandLine.arguments
guard arguments.count == 5, let items = Int(arguments[2]), let photos = Int(arguments[3]), let kilobytes = Int(arguments[4]) else {
    FileHandle.standardError.write(Data("usage: bench-backup DATA-FOLDER ITEMS PHOTOS KB\n".utf8))
    exit(2)
}
let now = Date()
let database = try AppDatabase.open(DataFolder(path: arguments[1]))
let household = try database.createHousehold(name: "Benchmark Household", currency: .usd, now: now)
let today = CalendarDate(now, in: .current)
var generator = SystemRandomNumberGenerator()
var bytes = [UInt8](repeating: 0, count: kilobytes * 1024)
let started = Date()
var photoIndex = 0
let batch = 250
for start in stride(from: 0, to: items, by: batch) {
    var newItems: [NewItem] = []
    for index in start..<min(items, start + batch) {
        // Photos spread evenly: items get photos/items each, the first ones one more.
        let count = photos / items + (index < photos % items ? 1 : 0)
        var attachments: [Attachment] = []
        for _ in 0..<count {
            for i in stride(from: 0, to: bytes.count, by: 8) {
                withUnsafeBytes(of: generator.next()) { raw in
                    for j in 0..<min(8, bytes.count - i) { bytes[i + j] = raw[j] }
                }
            }
            attachments.append(try database.storeAttachment(Data(bytes), contentType: "image/jpeg", now: now))
            photoIndex += 1
        }
        let draft = ItemDraft(name: "Item \(index)", brand: "Brand \(index % 40)", serialNumber: "SN\(index)",
                              purchasePrice: try Money(minorUnits: Int64(1000 + index * 37), currency: .usd),
                              currency: .usd, tags: ["bench"], quantity: 1)
        newItems.append(NewItem(draft: draft, createdAt: now, photos: attachments))
    }
    try database.insertItems(household.id, newItems, today: today)
}
print("seeded \(items) items, \(photoIndex) photos of \(kilobytes) KB in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
