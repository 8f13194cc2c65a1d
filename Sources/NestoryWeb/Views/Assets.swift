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
    /// The app's icon: vector for browsers' tabs, bitmaps for home screens (scripts/make-icons.sh makes them).
    static let icon = embedded("icon.svg", type: "image/svg+xml")
    static let icon192 = embedded("icon-192.png", type: "image/png")
    static let icon512 = embedded("icon-512.png", type: "image/png")
    static let iconMaskable = embedded("icon-maskable-512.png", type: "image/png")
    static let touchIcon = embedded("apple-touch-icon.png", type: "image/png")
    /// The service worker's code; served at /sw.js (its scope is the folder it is served from).
    static let serviceWorker = embedded("sw.js", type: "text/javascript; charset=utf-8")

    /// Everything served under /assets/ with a versioned URL.
    static let all = [css, js, icon, icon192, icon512, iconMaskable, touchIcon]

    /// One version for the app shell: changes whenever any asset or the worker changes, so a phone fetches the
    /// new worker, which caches the new shell and drops the old one.
    static let shellVersion: String = {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in (all + [serviceWorker]).map(\.hash).joined().utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }()

    /// The web app manifest: installable, standalone, opening on the inventory.
    static let manifest: String = {
        let icons = [(icon192, "192x192", "any"), (icon512, "512x512", "any"), (iconMaskable, "512x512", "maskable")]
            .map { #"{"src": "\#($0.0.url)", "sizes": "\#($0.1)", "type": "image/png", "purpose": "\#($0.2)"}"# }
            .joined(separator: ", ")
        return #"""
            {"name": "Nestory", "short_name": "Nestory", "description": "Home inventory for insurance: what you own, what it was worth, where it was.",
             "id": "/", "start_url": "/", "scope": "/", "display": "standalone", "orientation": "any",
             "background_color": "#f6f7f9", "theme_color": "#0f766e", "categories": ["productivity", "utilities"],
             "icons": [\#(icons)]}
            """#
    }()

    private static func embedded(_ name: String, type: String) -> File {
        guard let entry = EmbeddedAssets.files[name], let bytes = Data(base64Encoded: entry.base64) else {
            fatalError("\(name) was not embedded at build time (Sources/NestoryWeb/Assets/)")
        }
        return File(name: name, contentType: type, hash: entry.hash, body: ByteBuffer(bytes: bytes))
    }
}

/// Serves the assets: cached for a year when the URL names this build's version, else revalidated
/// (an old page asking for an old version gets today's file, which no cache keeps as the old one).
/// Also the app shell's other files: the manifest, the service worker (at the root, so it may control every
/// page) with this build's shell version and asset URLs, and the favicon.
struct AssetsController {
    func addRoutes(to router: Router<AppRequestContext>) {
        for file in Assets.all {
            router.get(RouterPath("assets/\(file.name)")) { request, _ in Self.response(file, asked: request.query["v"]) }
        }
        router.get("manifest.webmanifest") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "application/manifest+json"
            headers[.cacheControl] = "no-cache"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: Assets.manifest)))
        }
        router.get("sw.js") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = Assets.serviceWorker.contentType
            headers[.cacheControl] = "no-cache"
            let shell = ([Assets.css, Assets.js, Assets.icon, Assets.icon192, Assets.touchIcon].map(\.url) + ["/offline"])
                .map { "\"\($0)\"" }.joined(separator: ", ")
            let prologue = "const VERSION = \"\(Assets.shellVersion)\";\nconst SHELL = [\(shell)];\n"
            var body = ByteBuffer(string: prologue)
            var code = Assets.serviceWorker.body
            body.writeBuffer(&code)
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
        }
        router.get("favicon.ico") { _, _ in Self.response(Assets.icon192, asked: nil) }
        // Shown by the service worker for a page not kept on this device while there is no connection.
        router.get("offline") { _, _ in
            HTMLResponse.page(Layout.page(title: "You’re offline", viewer: nil, body: """
                <section class="card">
                  <p class="lead">This page isn’t saved on this device, and there is no connection to your Nestory server right now.</p>
                  <p>Pages you opened recently still show, as they were then. Nothing you saved is lost.</p>
                  <p><a class="button primary" href="/">Open the inventory</a> <a class="button" href="">Try again</a></p>
                </section>
                """))
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
