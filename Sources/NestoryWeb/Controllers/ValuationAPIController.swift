import Foundation
import Hummingbird
import NestoryDomain
import NestoryServices

/// `/api/v1`: an item's valuations (read, enter by hand, estimate offline) and the household's history by day.
struct ValuationAPIController {
    let dependencies: WebDependencies
    var valuations: ValuationService { dependencies.services.valuations }

    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        group.get("items/:id/valuations", use: list)
        group.post("items/:id/valuations", use: enter)
        group.post("items/:id/valuations/offline", use: estimateOffline)
        group.get("valuations/history", use: history)
        group.post("valuations/photos", use: addPhoto)
    }

    /// A photo to value a new thing from (the body is the image); no item is made until its proposal is saved.
    @Sendable func addPhoto(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<IntakeJSON> {
        let viewer = try context.requireViewer()
        let photo = try await dependencies.items.addIntakePhoto(viewer.household.id, declaredLength: request.headers[.contentLength].flatMap(Int64.init)) { upload in
            for try await buffer in request.body {
                try buffer.withUnsafeReadableBytes { try upload.append($0) }
            }
        }
        return EditedResponse(status: .created, response: IntakeJSON(id: photo.id.uuidString.lowercased(), sha256: photo.attachment.sha256,
                                                                     url: "/files/\(photo.attachment.sha256)"))
    }

    @Sendable func list(_ request: Request, context: AppRequestContext) async throws -> ListJSON<ValuationJSON> {
        let viewer = try context.requireViewer()
        return ListJSON(items: try await valuations.history(viewer.household.id, item: try context.itemID()).map(ValuationJSON.init))
    }

    @Sendable func enter(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<ValuationJSON> {
        let viewer = try context.requireViewer()
        let id = try context.itemID()
        let body: [String: JSONField]
        do { body = try await request.decode(as: [String: JSONField].self, context: context) } catch {
            throw WebError.badRequest("The body must be {\"replacementCost\"?, \"actualCashValue\"?, \"date\"?, \"note\"?} with amounts as decimal text.")
        }
        let input = try JSONFields.texts(body, known: ["replacementCost", "actualCashValue", "date", "note"],
                                         numeric: ["replacementCost", "actualCashValue"], of: "a valuation").get()
        let valuation = try await valuations.enter(viewer.household.id, item: id, replacementCost: input["replacementCost"] ?? "",
                                                   actualCashValue: input["actualCashValue"] ?? "", on: input["date"] ?? "", note: input["note"] ?? "")
        return EditedResponse(status: .created, response: ValuationJSON(valuation))
    }

    @Sendable func estimateOffline(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<ValuationJSON> {
        let viewer = try context.requireViewer()
        let valuation = try await valuations.estimateOffline(viewer.household.id, item: try context.itemID())
        return EditedResponse(status: .created, response: ValuationJSON(valuation))
    }

    @Sendable func history(_ request: Request, context: AppRequestContext) async throws -> ListJSON<ValuationDayJSON> {
        let viewer = try context.requireViewer()
        return ListJSON(items: try await valuations.householdHistory(viewer.household.id).map(ValuationDayJSON.init))
    }

}

/// A valuation as JSON: replacement cost and actual cash value with their ranges, how, how sure, for which day.
struct ValuationJSON: ResponseEncodable, Sendable {
    struct Range: Encodable, Sendable {
        let value: MoneyJSON
        let low: MoneyJSON
        let high: MoneyJSON
        init(_ range: ValueRange) {
            value = MoneyJSON(range.value)
            low = MoneyJSON(range.low)
            high = MoneyJSON(range.high)
        }
    }

    struct Source: Encodable, Sendable {
        let url: String
        let title: String
        let amount: MoneyJSON
        let fetchedAt: Date
    }

    let id: String
    let itemID: String
    let replacementCost: Range?
    let actualCashValue: Range?
    let method: String
    let confidence: String
    let valuedOn: String
    let sources: [Source]
    let explanation: String?
    let createdAt: Date

    init(_ valuation: Valuation) {
        id = valuation.id.uuidString.lowercased()
        itemID = valuation.itemID.description
        replacementCost = valuation.replacementCost.map(Range.init)
        actualCashValue = valuation.actualCashValue.map(Range.init)
        method = valuation.method.rawValue
        confidence = valuation.confidence.rawValue
        valuedOn = valuation.valuedOn.iso
        sources = valuation.sources.map { Source(url: $0.url, title: $0.title, amount: MoneyJSON($0.amount), fetchedAt: $0.fetchedAt) }
        explanation = valuation.explanation
        createdAt = valuation.createdAt
    }
}

/// A photo to value, as stored.
struct IntakeJSON: ResponseEncodable, Sendable {
    let id: String
    let sha256: String
    let url: String
}

/// One day of the household's valuation history.
struct ValuationDayJSON: Encodable, Sendable {
    let day: String
    let count: Int
    let replacementCost: [MoneyJSON]
    let actualCashValue: [MoneyJSON]

    init(_ day: ValuationDay) {
        self.day = day.day.iso
        count = day.count
        replacementCost = day.replacementCost.map(MoneyJSON.init)
        actualCashValue = day.actualCashValue.map(MoneyJSON.init)
    }
}
