import NestoryDomain
import Testing

@Suite("Free and Pro: the limits, in one place")
struct PlanTests {
    @Test("Free may grow to 100 items; a household already over it keeps everything and may shrink, not grow")
    func items() throws {
        let free = Entitlement.free
        try free.checkItems(before: 99, after: 100, action: .add)
        #expect(throws: DomainError.self) { try free.checkItems(before: 100, after: 101, action: .add) }
        try free.checkItems(before: 150, after: 149, action: .add)
        try free.checkItems(before: 150, after: 150, action: .restore)
        #expect(throws: DomainError.self) { try free.checkItems(before: 150, after: 151, action: .import) }
        try Entitlement.everything.checkItems(before: 100_000, after: 200_000, action: .import)
        do {
            try free.checkItems(before: 30, after: 230, action: .import)
            Issue.record("expected the limit")
        } catch {
            guard case .proRequired(let limit) = error else { Issue.record("expected proRequired"); return }
            #expect(limit.feature == .unlimitedItems)
            #expect(limit.message.contains("230 items") && limit.message.contains("up to 100") && limit.message.contains("Nothing was imported"))
        }
        do {
            try free.checkItems(before: 0, after: 200, action: .restore)
            Issue.record("expected the limit")
        } catch {
            guard case .proRequired(let limit) = error else { Issue.record("expected proRequired"); return }
            #expect(limit.message.contains("This restore would bring the household to 200 items") && limit.message.contains("Nothing was restored."))
        }
    }

    @Test("loss lists of 20, the inventory PDF without photos and no CSV on Free; a licence may unlock some features only")
    func reports() throws {
        let free = Entitlement.free
        try free.checkLossList(count: 20)
        #expect(throws: DomainError.self) { try free.checkLossList(count: 21) }
        try free.checkReportPhotos(false)
        #expect(throws: DomainError.self) { try free.checkReportPhotos(true) }
        #expect(throws: DomainError.self) { try free.checkCSVExport() }
        let some = Entitlement(source: .instanceSetting, features: [.csvExport])
        try some.checkCSVExport()
        #expect(some.plan == .pro && some.maxItems == 100)
        #expect(throws: DomainError.self) { try some.checkLossList(count: 21) }
        #expect(free.plan == .free && Entitlement.everything.maxItems == nil)
    }
}
