import Foundation
import NestoryDomain

/// Settings → About: the version, the software's licences, what this server keeps and what leaves it.
enum AboutViews {
    /// When this binary was built (its file's modification time), if it can be read.
    static let built: Date? = {
        guard let path = Bundle.main.executablePath ?? CommandLine.arguments.first else { return nil }
        return (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate]) as? Date
    }()

    /// The open-source parts Nestory is built from, with their licences.
    static let components: [(name: String, use: String, licence: String)] = [
        ("Swift and Foundation", "the language and its libraries", "Apache-2.0"),
        ("SQLite", "the embedded database", "public domain"),
        ("GRDB.swift", "SQLite access", "MIT"),
        ("Hummingbird, SwiftNIO", "the web server", "Apache-2.0"),
        ("swift-crypto", "hashing, signatures, encryption", "Apache-2.0"),
        ("swift-configuration, swift-log, swift-metrics, swift-prometheus, ServiceLifecycle", "operating the server", "Apache-2.0"),
        ("libvips", "photos", "LGPL-2.1"),
        ("RapidOCR (PaddleOCR models, ONNX Runtime)", "reading receipts", "Apache-2.0, MIT"),
        ("tesseract", "reading receipts", "Apache-2.0"),
        ("zbar", "barcodes", "LGPL-2.1"),
        ("zxing-cpp", "barcodes", "Apache-2.0"),
        ("cairo, pango", "PDF reports", "LGPL-2.1 / MPL-1.1"),
        ("ZIPFoundation", "backups", "MIT"),
        ("bcrypt (hummingbird-auth)", "passwords", "Apache-2.0"),
    ]

    static func section(viewer: Viewer, onlineLookup: Bool, webhookSet: Bool, photoAnalysis: Bool = false, marketSearch: Bool = false) -> SettingsSection {
        let built = Self.built.map { date -> String in
            let formatter = DateFormatter()
            formatter.locale = viewer.locale
            formatter.dateStyle = .medium
            formatter.timeStyle = .short
            return ", built \(formatter.string(from: date))"
        } ?? ""
        let rows: [HTML] = components.map { HTML("<li><strong>\($0.name)</strong>: \($0.use) · \($0.licence)</li>") }
        let leaving: [String] = [
            onlineLookup ? "scanned barcodes are looked up in online product databases (Open Food Facts, UPCitemdb): they learn the code, nothing else" : nil,
            webhookSet ? "reminders go to the household’s webhook" : nil,
            photoAnalysis ? "when items are valued, their photos (downsized, without location data) go to the photo-analysis endpoint set in Settings → Valuation" : nil,
            marketSearch ? "when items are valued, their brand, product and model go to the market search set in Settings → Valuation" : nil,
        ].compactMap { $0 }
        return SettingsSection(id: "about", title: "About", summary: "Nestory \(NestoryVersion.current) · \(leaving.isEmpty ? "nothing leaves this server" : "what leaves this server, and where")", html: """
            <section class="card" id="about">
            <h2>About</h2>
            <p>Nestory \(NestoryVersion.current)\(built)</p>
            <h3>Privacy</h3>
            <p>Everything stays on this server: your account (the password only as a bcrypt hash), the household’s items, rooms and categories, photos and receipts exactly as uploaded, the text read from receipts, and the reports you make. Sign-ins are kept as hashes of their tokens. The capture screen keeps daily counts only, never what was scanned or by whom.</p>
            <p>Nothing leaves the server unless the household turned it on. \(leaving.isEmpty ? "Right now, nothing does." : "Right now: \(leaving.joined(separator: "; ")).") A calendar app you give your calendar address to reads your warranty dates from here.</p>
            <h3>For developers</h3>
            <p>The JSON API is described at <a href="/api/v1/openapi.json">/api/v1/openapi.json</a> (OpenAPI 3.1).</p>
            <details><summary>Open-source software in Nestory</summary>
            <ul class="plain">\(rows)</ul>
            </details>
            </section>
            """)
    }
}
