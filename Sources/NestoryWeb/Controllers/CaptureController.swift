import Foundation
import HTTPTypes
import Hummingbird
import NestoryBarcodes
import NestoryDomain
import NestoryProducts
import NestoryStore

/// The Capture tab, barcode mode: live scanning (camera frames decoded on the server), the photo
/// fallback, typing the code, and the result screen with the quick form that creates the item.
struct CaptureController {
    let dependencies: WebDependencies

    func addRoutes(to router: Router<AppRequestContext>, api: RouterGroup<AppRequestContext>) {
        router.get("capture", use: capturePage)
        router.get("capture/barcode", use: typedCode)
        router.get("capture/photo", use: photoItem)
        router.get("capture/barcode/:code", use: result)
        router.post("settings/products", use: setOnlineLookup)
        router.post("settings/scanning", use: setScanning)
        api.post("barcodes/decode", use: decode)
        api.get("products/:code", use: lookup)
    }

    @Sendable func capturePage(_ request: Request, context: AppRequestContext) async throws -> Response {
        try await scanPage(try context.requireViewer())
    }

    /// The barcode mode; with `typed` and `problem`, its "type the code" form comes back with what was typed and why it
    /// was not looked up (422).
    private func scanPage(_ viewer: Viewer, typed: String = "", problem: String? = nil) async throws -> Response {
        HTMLResponse.page(CaptureViews.scan(viewer: viewer, typed: typed, problem: problem,
                                            scanning: try await dependencies.scanningEnabled(viewer.household.id),
                                            recent: try await Self.recentCaptures(dependencies, viewer)),
                          status: problem == nil ? .ok : .unprocessableContent)
    }

    /// Photo item mode: the camera, then the quick form.
    @Sendable func photoItem(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let places = try await dependencies.items.places(viewer.household.id)
        return HTMLResponse.page(CaptureViews.photoItem(viewer: viewer, rooms: places.rooms, categories: places.categories, today: dependencies.today(viewer.household),
                                                        recent: try await Self.recentCaptures(dependencies, viewer)))
    }

    /// The last items and receipts added, newest first (items made from a scan carry their barcode).
    static func recentCaptures(_ dependencies: WebDependencies, _ viewer: Viewer, limit: Int = 8) async throws -> [RecentCapture] {
        let household = viewer.household.id
        let items = try await dependencies.items.search(household, ItemQuery(sort: .newest, limit: limit)).elements.map { listing in
            RecentCapture(title: listing.item.name, detail: listing.item.barcode == nil ? "Item" : "Scanned item",
                          href: "/items/\(listing.item.id)", thumbnail: listing.primaryPhoto?.sha256, at: listing.item.createdAt)
        }
        let receipts = try await dependencies.services.receipts.list(household, limit: limit).elements.map { listing in
            RecentCapture(title: listing.receipt.vendor ?? "Receipt", detail: listing.receipt.total.map { "Receipt · \($0.formatted)" } ?? "Receipt",
                          href: "/receipts/\(listing.receipt.id)", thumbnail: listing.receipt.attachment.sha256, at: listing.receipt.createdAt)
        }
        return Array((items + receipts).sorted { $0.at > $1.at }.prefix(limit))
    }

    /// The "type the code" form: any code is accepted (it is saved as typed); a product code with a
    /// wrong check digit is sent back with a message, since it is almost always a typo.
    @Sendable func typedCode(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        let typed = (request.query["code"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let code = typed.allSatisfy({ $0.isNumber || $0 == " " || $0 == "-" }) ? typed.filter(\.isNumber) : typed
        guard !code.isEmpty, code.count <= 200 else {
            return try await scanPage(viewer, typed: String(typed.prefix(200)), problem: "Type the number under the barcode.")
        }
        if code.allSatisfy(\.isNumber), [8, 12, 13, 14].contains(code.count), GTIN(code) == nil {
            return try await scanPage(viewer, typed: typed,
                                      problem: "\(code) is not a valid product code (its last digit does not match). Check the number and type it again.")
        }
        return .redirect(to: "/capture/barcode/" + (code.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? code))
    }

    @Sendable func result(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        guard let code = context.parameters.get("code")?.removingPercentEncoding, !code.isEmpty, code.count <= 200 else {
            throw DomainError.notFound("The code")
        }
        let result = try await dependencies.products.lookup(code, household: viewer.household.id, now: dependencies.now())
        let places = try await dependencies.items.places(viewer.household.id)
        return HTMLResponse.page(CaptureViews.result(viewer: viewer, result: result, rooms: places.rooms, categories: places.categories,
                                                     check: request.query["check"] == "1"))
    }

    /// The owner's switch for barcode scanning in this household.
    @Sendable func setScanning(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        guard viewer.role == .owner else { throw WebError.forbidden("Only the household’s owner can change this.") }
        let enabled = try await Form.read(request, context: context)["scanning"] == "on"
        try await dependencies.products.store.setScanningEnabled(viewer.household.id, enabled)
        return .redirect(to: "/settings#lookups", notice: enabled ? "Barcode scanning is on." : "Barcode scanning is off.")
    }

    @Sendable func setOnlineLookup(_ request: Request, context: AppRequestContext) async throws -> Response {
        let viewer = try context.requireViewer()
        guard viewer.role == .owner else { throw WebError.forbidden("Only the household’s owner can change this.") }
        let form = try await Form.read(request, context: context)
        let enabled = form["online"] == "on"
        try await dependencies.products.store.setOnlineProductLookup(viewer.household.id, enabled)
        return .redirect(to: "/settings#lookups", notice: enabled ? "Online product lookups are on." : "Online product lookups are off.")
    }

    // MARK: - API

    struct CodesJSON: ResponseEncodable {
        let codes: [DecodedBarcode.JSON]
    }

    /// The body is a picture (a camera frame or a photo); `region=x,y,w,h` (fractions) limits the search.
    @Sendable func decode(_ request: Request, context: AppRequestContext) async throws -> CodesJSON {
        let viewer = try context.requireViewer()
        guard try await dependencies.scanningEnabled(viewer.household.id) else { throw WebError.scanningDisabled }
        guard let decoder = dependencies.barcodes else { throw WebError.badRequest("Barcode scanning is not available on this server.") }
        let limit = dependencies.limits.maxScanBytes
        if let length = request.headers[.contentLength].flatMap(Int64.init), length > limit { throw StoreError.tooLarge(limit: limit) }
        let body = try await request.body.collect(upTo: Int(limit))
        let region = try request.query["region"].map { try Self.region(String($0)) }
        let data = Data(buffer: body)
        let codes: [DecodedBarcode]
        do {
            codes = try await dependencies.blocking.run { try decoder.decode(imageData: data, region: region) }
        } catch let error as BarcodeReaderError {
            throw WebError.unprocessable(error.message)
        }
        return CodesJSON(codes: codes.map(DecodedBarcode.JSON.init))
    }

    @Sendable func lookup(_ request: Request, context: AppRequestContext) async throws -> LookupJSON {
        let viewer = try context.requireViewer()
        guard let code = context.parameters.get("code")?.removingPercentEncoding, !code.isEmpty else { throw WebError.badRequest("Give a code.") }
        guard code.count <= 200 else { throw WebError.badRequest("A code is at most 200 characters (this one has \(code.count)).") }
        return LookupJSON(result: try await dependencies.products.lookup(code, household: viewer.household.id, now: dependencies.now()))
    }

    struct LookupJSON: ResponseEncodable {
        let result: LookupResult
        func encode(to encoder: any Encoder) throws { try result.encode(to: encoder) }
    }

    static func region(_ text: String) throws -> BarcodeRegion {
        guard let region = BarcodeRegion(parsing: text) else {
            throw WebError.badRequest("region is x,y,width,height as fractions of the picture, e.g. 0.1,0.3,0.8,0.4.")
        }
        return region
    }
}
