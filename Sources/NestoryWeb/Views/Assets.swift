import Foundation
import HTTPTypes
import Hummingbird

/// The stylesheet and script: real files in Sources/NestoryWeb/Assets/, compiled into the binary by the
/// EmbedAssets build plugin (so `nestory serve` needs no files beside it), each with a hash of its content
/// that its URL carries, so a browser may cache each version forever and sees a new one at once.
enum Assets {
    struct File: Sendable {
        let name: String
        let contentType: String
        /// A hash of the content (from the build), in the URL as `?v=`.
        let hash: String
        let body: ByteBuffer

        /// The URL pages link to.
        var url: String { "/assets/\(name)?v=\(hash)" }
    }

    static let css = embedded("app.css", type: "text/css; charset=utf-8")
    static let js = embedded("app.js", type: "text/javascript; charset=utf-8")

    private static func embedded(_ name: String, type: String) -> File {
        guard let entry = EmbeddedAssets.files[name], let bytes = Data(base64Encoded: entry.base64) else {
            fatalError("\(name) was not embedded at build time (Sources/NestoryWeb/Assets/)")
        }
        return File(name: name, contentType: type, hash: entry.hash, body: ByteBuffer(bytes: bytes))
    }
}

/// Serves the assets: cached for a year when the URL names this build's version, else revalidated
/// (an old page asking for an old version gets today's file, which no cache keeps as the old one).
struct AssetsController {
    func addRoutes(to router: Router<AppRequestContext>) {
        for file in [Assets.css, Assets.js] {
            router.get(RouterPath("assets/\(file.name)")) { request, _ in Self.response(file, asked: request.query["v"]) }
        }
    }

    static func response(_ file: Assets.File, asked version: String?) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = file.contentType
        headers[.cacheControl] = version == file.hash ? "public, max-age=31536000, immutable" : "no-cache"
        headers[.eTag] = "\"\(file.hash)\""
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: file.body))
    }
}
