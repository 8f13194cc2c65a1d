// swift-tools-version: 6.2
import PackageDescription

// libvips, tesseract, pango/cairo and zbar are not linked: our C targets load them with dlopen on first
// use (CNativeLoader), so the server does not map ~150 libraries it may never need. Their headers are
// still needed for types. pkg-config would add `-l` flags along with the include paths, so the few
// include folders outside /usr/include are named here (Debian/Ubuntu multiarch layout).
#if arch(arm64)
let multiarch = "aarch64-linux-gnu"
#else
let multiarch = "x86_64-linux-gnu"
#endif
/// Include folders for <glib.h> (libvips' and pango's headers need it).
let glibIncludes = ["-I/usr/include/glib-2.0", "-I/usr/lib/\(multiarch)/glib-2.0/include"]
/// Include folders for <pango/pangocairo.h> (CPangoCairo's header).
let pangoCairoIncludes = ["-I/usr/include/pango-1.0", "-I/usr/include/harfbuzz", "-I/usr/include/cairo"] + glibIncludes

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    // Every module that imports NestoryPDF, directly or not, reads CPangoCairo's headers.
    .unsafeFlags(pangoCairoIncludes.flatMap { ["-Xcc", $0] }),
]

let package = Package(
    name: "nestory",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "nestory", targets: ["nestory"]),
        .executable(name: "nestory-bench", targets: ["nestory-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/weichsel/ZIPFoundation.git", from: "0.9.20"),
        // Operating the server: one settings value (flags, environment, file, defaults), services that start and
        // drain together (the HTTP server, the job runner), and Prometheus metrics.
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0", traits: [.defaults, "CommandLineArguments"]),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // MCP (issue 20): the Model Context Protocol server for assistants (stdio and Streamable HTTP).
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk.git", exact: "0.12.1"),
        // Tests only: file descriptors for the MCP client over a child's stdio (the SDK's StdioTransport takes them).
        .package(url: "https://github.com/apple/swift-system.git", from: "1.4.0"),
        // Tests only: the pages' HTML compared with recorded snapshots (NestoryWebTests/PageSnapshotTests).
        .package(url: "https://github.com/pointfreeco/swift-snapshot-testing.git", from: "1.19.7"),
        // PostgreSQL, the store for deployments that outgrow one machine.
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        // The domain: plain Swift values and rules. No server, database or C dependency.
        .target(name: "NestoryDomain", swiftSettings: swiftSettings),

        // The store's interfaces, one per aggregate, with their read models: what services and commands call, whatever
        // the engine. Each engine passes one conformance suite (Tests/NestoryStoreInterfacesTests).
        .target(name: "NestoryStoreInterfaces", dependencies: ["NestoryDomain"], swiftSettings: swiftSettings),

        // Persistence: SQLite through GRDB, and content-addressed attachment files.
        .target(
            name: "NestoryStore",
            dependencies: [
                "NestoryDomain",
                "NestoryStoreInterfaces",
                .product(name: "GRDB", package: "GRDB.swift"),
                // The C API, for one aggregate GRDB's functions would slow (SeqCollector).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),

        // The same interfaces on PostgreSQL (postgres-nio's pooled client), with migrations of its own.
        .target(
            name: "NestoryStorePostgres",
            dependencies: [
                "NestoryDomain",
                "NestoryStoreInterfaces",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // Deterministic, realistic demo households (for trying the app and for benchmarks).
        .target(name: "NestoryDemo", dependencies: ["NestoryDomain", "NestoryStore", "NestoryStoreInterfaces"], swiftSettings: swiftSettings),

        // Password hashing (bcrypt over a SHA-256 pre-hash, so long passwords have no cap).
        .target(
            name: "NestoryAuth",
            dependencies: [
                "NestoryDomain",
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),

        // One durable job system: jobs as rows, a runner that is a ServiceLifecycle service.
        .target(
            name: "NestoryJobs",
            dependencies: [
                "NestoryDomain", "NestoryStoreInterfaces",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: swiftSettings
        ),

        // Use-case services: one use case per method, shared by the web app and the command line.
        .target(
            name: "NestoryServices",
            dependencies: ["NestoryDomain", "NestoryStore", "NestoryStoreInterfaces", "NestoryAuth", "NestoryImaging", "NestoryJobs", "NestoryReports", "NestoryReceipts",
                           "NestoryBackup", "NestoryImport", "NestoryReminders", "NestoryValuation", "NestoryLicences", "NestoryHTTP",
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")],
            swiftSettings: swiftSettings
        ),

        // The MCP server (issue 20): tools and resources over the use-case services, one server per session, bound to
        // a token's household; the transports (stdio, Streamable HTTP) are chosen by the CLI and the web module.
        .target(
            name: "NestoryMCP",
            dependencies: ["NestoryDomain", "NestoryServices", "NestoryStoreInterfaces", "NestoryReports", .product(name: "MCP", package: "swift-sdk")],
            swiftSettings: swiftSettings
        ),

        // HTTP server and web app.
        .target(
            name: "NestoryWeb",
            dependencies: [
                "NestoryDomain",
                "NestoryServices",
                "NestoryStore",
                "NestoryStoreInterfaces",
                "NestoryAuth",
                "NestoryImaging",
                "NestoryBackup",
                "NestoryImport",
                "NestoryBarcodes",
                "NestoryProducts",
                "NestoryReceipts",
                "NestoryReports",
                "NestoryReportsLive",
                "NestoryReminders",
                "NestoryValuation",
                "NestoryMCP",
                .product(name: "MCP", package: "swift-sdk"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            // Assets/ holds the stylesheet and script as real files; the plugin compiles them in.
            exclude: ["Assets"],
            swiftSettings: swiftSettings,
            plugins: ["EmbedAssets"]
        ),
        // Embeds a target's Assets/ files, with content hashes, as generated Swift at build time.
        .executableTarget(name: "embed-assets"),
        .plugin(name: "EmbedAssets", capability: .buildTool(), dependencies: ["embed-assets"]),

        // The command line: commands and the bootstrap that picks live implementations.
        .target(
            name: "NestoryCLI",
            dependencies: [
                "NestoryDomain",
                "NestoryServices",
                "NestoryStore",
                "NestoryStoreInterfaces",
                "NestoryStorePostgres",
                "NestoryDemo",
                "NestoryAuth",
                "NestoryWeb",
                "NestoryImagingLive",
                "NestoryBarcodes",
                "NestoryBarcodesLive",
                "NestoryProducts",
                "NestoryReceipts",
                "NestoryOCR",
                "NestoryBackup",
                "NestoryImport",
                "NestoryReports",
                "NestoryReportsLive",
                "NestoryReminders",
                "NestoryJobs",
                "NestoryLicences",
                "NestoryValuation",
                "NestoryValuationLive",
                "NestoryObjectStorage",
                "NestoryMCP",
                .product(name: "MCP", package: "swift-sdk"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),

        // dlopen on first use, for the native libraries above (one small C file, no dependency).
        .target(name: "CNativeLoader"),

        // MARK: Imaging (libvips): thumbnails, orientation, metadata stripping, limits.
        // The interface the web layer depends on (no C dependency), and its libvips implementation.
        .target(name: "NestoryImaging", swiftSettings: swiftSettings),
        // Plain C functions over libvips' varargs API (Swift cannot call varargs or VIPS_INIT).
        // libvips (libvips-dev) is loaded on the first nv_init, through nestory_vips_lazy.h.
        .target(name: "CVipsShim", dependencies: ["CNativeLoader"], cSettings: [.unsafeFlags(glibIncludes)]),
        .target(
            name: "NestoryImagingLive",
            dependencies: ["NestoryImaging", "CVipsShim"],
            swiftSettings: swiftSettings
        ),
        // END Imaging

        // MARK: Barcodes (zbar): decoding, GTIN normalisation.
        // zbar's C API: the header only (/usr/include/zbar.h, libzbar-dev). Nothing is linked: CZBarLoader
        // defines the functions Swift calls and loads libzbar.so.0 on the first scanner.
        .systemLibrary(name: "CZBar"),
        .target(name: "CZBarLoader", dependencies: ["CNativeLoader"]),
        // A tiny C shim: image bytes (PNG, JPEG, ...) to an 8-bit grayscale buffer through libvips
        // (loaded on first use through CVipsShim's table); the common PNGs inflated by libdeflate (libdeflate.h,
        // libdeflate-dev) and the other 8-bit ones read by libpng (png.h, libpng-dev), both loaded on first use too.
        .target(name: "CBarcodeImageLoader", dependencies: ["CVipsShim", "CNativeLoader"], cSettings: [.unsafeFlags(glibIncludes)]),
        // zxing-cpp (pkg-config `zxing`, Debian's libzxing-dev), a second decoder beside zbar. Debian's build keeps
        // its assertions, which abort on some pictures, so it runs in a worker process of its own (nestory-zxing),
        // never inside the server.
        .systemLibrary(name: "CZXing", pkgConfig: "zxing", providers: [.apt(["libzxing-dev"])]),
        .executableTarget(name: "nestory-zxing", dependencies: ["CZXing"]),
        // Decoding EAN-13, EAN-8, UPC-A, UPC-E, Code 128 and QR from photos and camera frames.
        // The interface the web layer depends on (decoded codes, the decoder protocol; no C dependency),
        // and its zbar implementation.
        .target(name: "NestoryBarcodes", dependencies: ["NestoryDomain"], swiftSettings: swiftSettings),
        .target(name: "NestoryBarcodesLive", dependencies: ["NestoryBarcodes", "NestoryDomain", "NestoryChildProcess", "CZBar", "CZBarLoader", "CBarcodeImageLoader"], swiftSettings: swiftSettings),
        // Worker processes (OCR, barcodes) started with posix_spawn over pipes, inheriting none of the server's descriptors.
        .target(name: "NestoryChildProcess", dependencies: ["CSpawn"], swiftSettings: swiftSettings),
        .target(name: "CSpawn"),
        // Product lookup by GTIN: the household's items, the local catalogue, online providers (cached).
        .target(name: "NestoryProducts", dependencies: ["NestoryDomain", "NestoryStore", "NestoryStoreInterfaces"], swiftSettings: swiftSettings),
        // Valuation (issue 17): what an item is worth. Pure Swift rules: the offline estimate (depreciation by
        // category, age and condition) and prices read from market search results.
        .target(name: "NestoryValuation", dependencies: ["NestoryDomain"], swiftSettings: swiftSettings),
        // The valuation providers' HTTP clients: an OpenAI-compatible chat-completions endpoint for photo analysis,
        // Tavily for market search, with one retry policy (URLSession through FoundationNetworking).
        .target(name: "NestoryValuationLive", dependencies: ["NestoryValuation", "NestoryDomain", "NestoryHTTP"], swiftSettings: swiftSettings),
        // Calls to other services over HTTP: the one retry policy (backoff, Retry-After) the providers and the object store share.
        .target(name: "NestoryHTTP", swiftSettings: swiftSettings),
        // Photos and files in S3-compatible object storage (issue 19): AWS Signature V4 (swift-crypto) over URLSession,
        // behind NestoryStore's BlobBackend; chosen in the bootstrap from `storage.blobs`.
        .target(
            name: "NestoryObjectStorage",
            dependencies: ["NestoryStore", "NestoryHTTP", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        // Free and Pro: licence keys (Ed25519-signed payloads) verified offline with built-in public keys.
        .target(name: "NestoryLicences", dependencies: ["NestoryDomain", .product(name: "Crypto", package: "swift-crypto")],
                swiftSettings: swiftSettings),
        // The vendor's tool that issues licence keys from a private key (not part of the server).
        .executableTarget(
            name: "nestory-licence",
            dependencies: ["NestoryLicences", "NestoryDomain", .product(name: "ArgumentParser", package: "swift-argument-parser"),
                           .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        // Reminders outside the app: the calendar (ICS) feed of warranty expiries, and signed webhooks
        // guarded against reaching the server's own network.
        .target(name: "NestoryReminders", dependencies: ["NestoryDomain", "NestoryHTTP", .product(name: "Crypto", package: "swift-crypto")],
                swiftSettings: swiftSettings),
        // `make bench-barcodes`: decode rate, wrong reads and time per image beside zbarimg.
        .executableTarget(name: "bench-barcodes", dependencies: ["NestoryChildProcess", "NestoryBarcodesLive", "NestoryBarcodes", "NestoryDomain"], swiftSettings: swiftSettings),
        // END Barcodes

        // MARK: Receipts (tesseract): OCR and field extraction.
        // Field extraction from recognised text (pure Swift), and the recogniser interface.
        .target(name: "NestoryReceipts", dependencies: ["NestoryDomain"], swiftSettings: swiftSettings),
        // tesseract's C API and leptonica: headers only (in /usr/include; libtesseract-dev, libleptonica-dev,
        // tesseract-ocr-eng). Nothing is linked: CTesseractLoader defines the functions Swift calls and
        // loads libtesseract.so.5 on the first engine or image.
        .systemLibrary(name: "CTesseract"),
        .target(name: "CTesseractLoader", dependencies: ["CNativeLoader"]),
        // OCR: warm tesseract engines (and optional RapidOCR workers) on a bounded pool of threads.
        .target(name: "NestoryOCR", dependencies: ["CTesseract", "CTesseractLoader", "NestoryReceipts", "NestoryChildProcess"], swiftSettings: swiftSettings),
        // Accuracy benchmark on a folder of labelled receipts (`make bench-receipts`).
        .executableTarget(
            name: "nestory-receipts-bench",
            dependencies: ["NestoryReceipts", "NestoryOCR", "NestoryDomain"],
            swiftSettings: swiftSettings
        ),
        // END Receipts

        // MARK: Backup, restore and import.
        // Moving in: CSV parsing, column mapping (including Homebox's export) to item drafts. Pure Swift.
        .target(name: "NestoryImport", dependencies: ["NestoryDomain"], swiftSettings: swiftSettings),
        // zlib's CRC-32 (the ZIP checksum) for the archive writer.
        .systemLibrary(name: "CZlibCRC", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // Backup archives: a streaming ZIP writer, hostile-archive checks, validation, restore.
        .target(
            name: "NestoryBackup",
            dependencies: [
                "NestoryDomain",
                "NestoryStore",
                "NestoryStoreInterfaces",
                "CZlibCRC",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // `make bench-backup`: backup and restore beside zip -0 and unzip.
        .executableTarget(
            name: "bench-backup",
            dependencies: ["NestoryBackup", "NestoryStore", "NestoryStoreInterfaces", "NestoryDomain"],
            swiftSettings: swiftSettings
        ),
        // END Backup
        // MARK: Reports: the inventory and loss-list PDFs, CSV and JSON exports.
        // The report model, built from any item source; CSV and JSON writers. Pure Swift.
        .target(name: "NestoryReports", dependencies: ["NestoryDomain"], swiftSettings: swiftSettings),
        // cairo + pango through pangocairo (cairo's PDF surface comes with it): headers only (libcairo2-dev,
        // libpango1.0-dev). Nothing is linked: CPangoCairoLoader defines the functions Swift calls and loads
        // libpangocairo-1.0.so.0 on the first PDF.
        .systemLibrary(name: "CPangoCairo"),
        .target(name: "CPangoCairoLoader", dependencies: ["CNativeLoader"], cSettings: [.unsafeFlags(pangoCairoIncludes)]),
        // Renders a report model to a PDF file as a stream: vector text, embedded fonts, JPEGs passed through.
        .target(name: "NestoryPDF", dependencies: ["NestoryReports", "NestoryDomain", "CPangoCairo", "CPangoCairoLoader"], swiftSettings: swiftSettings),
        // Generation from the store: streams items page by page into the renderer, keeps the export history.
        .target(
            name: "NestoryReportsLive",
            dependencies: ["NestoryReports", "NestoryPDF", "NestoryStore", "NestoryStoreInterfaces", "NestoryDomain"],
            swiftSettings: swiftSettings
        ),
        // `make bench-reports`: a 5,000-item household with a photo each; PDF time and memory beside WeasyPrint.
        .executableTarget(
            name: "bench-reports",
            dependencies: ["NestoryReports", "NestoryReportsLive", "NestoryStore", "NestoryDemo", "NestoryDomain"],
            swiftSettings: swiftSettings
        ),
        // END Reports

        // Thin executables.
        .executableTarget(name: "nestory", dependencies: ["NestoryCLI"], swiftSettings: swiftSettings),
        .executableTarget(
            name: "nestory-bench",
            dependencies: [
                "NestoryDomain",
                "NestoryStore",
                "NestoryStoreInterfaces",
                "NestoryStorePostgres",
                "NestoryDemo",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),

        .testTarget(name: "NestoryDomainTests", dependencies: ["NestoryDomain"], swiftSettings: swiftSettings),
        // The store conformance suite: every test runs against SQLite and PostgreSQL.
        .testTarget(name: "NestoryStoreInterfacesTests",
                    dependencies: ["NestoryChildProcess", "NestoryStoreInterfaces", "NestoryStore", "NestoryStorePostgres", "NestoryDomain", "NestoryJobs", "NestoryBackup",
                                   "NestoryReports", "NestoryReportsLive", "NestoryDemo", "NestoryServices", "NestoryReceipts",
                                   "NestoryObjectStorage", "NestoryHTTP", .product(name: "ZIPFoundation", package: "ZIPFoundation")],
                    swiftSettings: swiftSettings),
        .testTarget(name: "NestoryStorePostgresTests",
                    dependencies: ["NestoryStorePostgres", "NestoryStoreInterfaces", "NestoryStore", "NestoryDomain",
                                   .product(name: "PostgresNIO", package: "postgres-nio")],
                    swiftSettings: swiftSettings),
        .testTarget(
            name: "NestoryStoreTests",
            dependencies: ["NestoryChildProcess", "NestoryStore", "NestoryStoreInterfaces", "NestoryDomain", "NestoryDemo", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "NestoryDemoTests", dependencies: ["NestoryDemo", "NestoryDomain", "NestoryStore"], swiftSettings: swiftSettings),
        .testTarget(name: "NestoryAuthTests", dependencies: ["NestoryAuth"], swiftSettings: swiftSettings),
        .testTarget(name: "NestoryRemindersTests", dependencies: ["NestoryReminders", "NestoryDomain"], swiftSettings: swiftSettings),
        .testTarget(name: "NestoryHTTPTests", dependencies: ["NestoryHTTP"], swiftSettings: swiftSettings),
        .testTarget(name: "NestoryLicencesTests", dependencies: ["NestoryLicences", "NestoryDomain", .product(name: "Crypto", package: "swift-crypto")],
                    swiftSettings: swiftSettings),
        .testTarget(name: "NestoryValuationTests", dependencies: ["NestoryValuation", "NestoryDomain"], swiftSettings: swiftSettings),
        .testTarget(
            name: "NestoryValuationLiveTests",
            dependencies: ["NestoryValuationLive", "NestoryValuation", "NestoryDomain", "NestoryHTTP", .product(name: "Hummingbird", package: "hummingbird")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NestoryObjectStorageTests",
            dependencies: ["NestoryChildProcess", "NestoryObjectStorage", "NestoryStore", "NestoryDomain", "NestoryHTTP", "NestoryReportsLive"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NestoryJobsTests",
            dependencies: ["NestoryJobs", "NestoryStore", "NestoryStoreInterfaces", "NestoryDomain", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NestoryServicesTests",
            dependencies: ["NestoryChildProcess", "NestoryServices", "NestoryStore", "NestoryStoreInterfaces", "NestoryDomain", "NestoryAuth", "NestoryImaging", "NestoryImagingLive", "NestoryValuation", "NestoryReminders",
                           "NestoryLicences", "NestoryStorePostgres", "NestoryProducts", "NestoryJobs", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NestoryWebTests",
            dependencies: [
                "NestoryChildProcess", "NestoryWeb", "NestoryServices", "NestoryStore", "NestoryStoreInterfaces", "NestoryDomain", "NestoryAuth", "NestoryImaging",
                "NestoryImagingLive", "NestoryDemo",
                "NestoryBarcodes", "NestoryBarcodesLive", "NestoryProducts", "NestoryReports", "NestoryReceipts", "NestoryReportsLive", "NestoryBackup",
                "NestoryLicences", "NestoryValuation", .product(name: "Crypto", package: "swift-crypto"),
                "NestoryMCP", .product(name: "MCP", package: "swift-sdk"), "NestoryObjectStorage", "NestoryHTTP",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "SnapshotTesting", package: "swift-snapshot-testing"),
                .product(name: "MetricsTestKit", package: "swift-metrics"), .product(name: "GRDB", package: "GRDB.swift"),
            ],
            // The pages' recorded snapshots are read from the source tree (SnapshotTesting), not bundled.
            exclude: ["__Snapshots__"],
            swiftSettings: swiftSettings
        ),
        // MARK: Imaging tests
        .testTarget(
            name: "NestoryImagingTests",
            dependencies: ["NestoryChildProcess", "NestoryImaging", "NestoryImagingLive", "CVipsShim"],
            swiftSettings: swiftSettings
        ),
        // Upload-to-thumbnail benchmark beside vipsthumbnail (`make bench-images`).
        .executableTarget(
            name: "bench-imaging",
            dependencies: ["NestoryChildProcess", "NestoryImaging", "NestoryImagingLive"],
            swiftSettings: swiftSettings
        ),
        // END Imaging tests

        // MARK: Barcodes tests
        .testTarget(name: "NestoryBarcodesTests", dependencies: ["NestoryChildProcess", "NestoryBarcodesLive", "NestoryBarcodes", "NestoryDomain", "NestoryDemo", "CBarcodeImageLoader"], swiftSettings: swiftSettings),
        .testTarget(
            name: "NestoryProductsTests",
            dependencies: ["NestoryProducts", "NestoryStore", "NestoryStoreInterfaces", "NestoryDomain", .product(name: "Hummingbird", package: "hummingbird")],
            swiftSettings: swiftSettings
        ),
        // END Barcodes tests

        // MARK: Receipts tests
        .testTarget(name: "NestoryReceiptsTests", dependencies: ["NestoryReceipts", "NestoryDomain"], swiftSettings: swiftSettings),
        .testTarget(name: "NestoryChildProcessTests", dependencies: ["NestoryChildProcess"], swiftSettings: swiftSettings),
        .testTarget(name: "NestoryOCRTests", dependencies: ["NestoryChildProcess", "NestoryOCR", "NestoryReceipts", "NestoryDomain"], swiftSettings: swiftSettings),
        // END Receipts tests

        .testTarget(name: "NestoryImportTests", dependencies: ["NestoryImport", "NestoryDomain"], swiftSettings: swiftSettings),
        .testTarget(
            name: "NestoryBackupTests",
            dependencies: ["NestoryBackup", "NestoryStore", "NestoryStoreInterfaces", "NestoryDomain", "NestoryDemo", "CZlibCRC",
                           .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                           .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings
        ),
        // MARK: Reports tests
        .testTarget(name: "NestoryReportsTests", dependencies: ["NestoryReports", "NestoryDomain"], swiftSettings: swiftSettings),
        .testTarget(
            name: "NestoryPDFTests",
            dependencies: ["NestoryChildProcess", "NestoryPDF", "NestoryReports", "NestoryDomain", "NestoryDemo", "NestoryImagingLive"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "NestoryReportsLiveTests",
            dependencies: ["NestoryChildProcess", "NestoryReportsLive", "NestoryReports", "NestoryStore", "NestoryDomain", "NestoryDemo"],
            swiftSettings: swiftSettings
        ),
        // END Reports tests

        .testTarget(name: "NestoryCLITests", dependencies: ["NestoryChildProcess", "NestoryCLI", "NestoryStore", "NestoryDomain", "NestoryDemo", "NestoryAuth",
                                                           "NestoryObjectStorage", "NestoryHTTP", .product(name: "GRDB", package: "GRDB.swift"),
                                                           .product(name: "Logging", package: "swift-log"),
                                                           .product(name: "MCP", package: "swift-sdk"),
                                                           "NestoryStoreInterfaces", "NestoryStorePostgres", "NestoryServices",
                                                           .product(name: "SystemPackage", package: "swift-system")], swiftSettings: swiftSettings),
    ],
    // zxing-cpp's headers need C++17.
    cxxLanguageStandard: .cxx17
)
