import Configuration
import Foundation
import Logging
import NestoryBarcodesLive
import NestoryDomain
import NestoryHTTP
import NestoryLicences
import NestoryObjectStorage
import NestoryServices
import NestoryStore
import NestoryStoreInterfaces
import NestoryStorePostgres
import NestoryWeb

/// Everything an operator can set, read once in the bootstrap with swift-configuration and passed down:
/// command-line flags first, then the environment (`NESTORY_` and the key in capitals, e.g.
/// `NESTORY_LIMITS_MAX_PHOTO_BYTES`), then the settings file (`--config FILE` or `NESTORY_CONFIG`, JSON with
/// the same keys nested: `{"limits": {"maxPhotoBytes": 20000000}}`), then the defaults below. No module below
/// the bootstrap reads the environment.
struct Settings: Sendable, Equatable {
    var host = "127.0.0.1"
    var port = 8080
    var data = DataFolder.defaultPath
    var secureCookies = false
    var logLevel = Logger.Level.info

    var maxPhotoBytes: Int64 = 40_000_000
    var maxArchiveBytes: Int64 = 64_000_000_000
    var maxCSVBytes: Int64 = 50_000_000
    var maxScanBytes: Int64 = 15_000_000

    var ocrEngine = "auto"
    var ocrPython = ".venv-ocr/bin/python"
    var ocrWorkers = 1
    /// ONNX Runtime threads per RapidOCR worker; 0: the machine's cores shared among the workers.
    var ocrThreads = 0
    /// `ocrThreads` as the recogniser takes it: nil for 0, the workers' share of the cores.
    var ocrThreadsPerWorker: Int? { ocrThreads == 0 ? nil : ocrThreads }
    var ocrQueue = 16
    var ocrTimeoutSeconds = 120

    var reportJobs = 1
    var receiptJobs = 1
    var drainSeconds = 25
    var jobLeaseSeconds = 30

    var sessionDays = 30
    var signInAccountLimit = 10
    var signInClientLimit = 50
    var signInWindowMinutes = 15
    var idleTimeoutSeconds = 60
    /// How long the API keeps what it answered to a request with an `Idempotency-Key`.
    var idempotencyWindowHours = 24
    /// Requests each personal API token may make per minute.
    var tokenRequestsPerMinute = 600

    /// `off`, `loopback` (only this machine may read /metrics) or `token` (a bearer token).
    var metrics = "loopback"
    var metricsToken: String?
    var minFreeMegabytes = 100
    var zxingWorker: String?
    /// Barcode scanning in the Capture tab, for every household (each owner can also turn it off for theirs).
    var scanning = true
    /// Photos larger than this (long side, pixels) are downsized in the browser before upload, at this JPEG quality (%).
    var photoLongSide = 2560
    var photoQuality = 85
    /// Whether webhooks may go to private, loopback and link-local addresses (a household's own network).
    var webhooksAllowPrivate = false
    /// How often the server looks for due reminders to send to webhooks.
    var remindersCheckMinutes = 60
    /// Calls to each valuation provider per minute, at most, across every batch.
    var valuationRequestsPerMinute = 60
    /// Items of a valuation batch valued at once (so a batch is bound by the providers' rate, not their latency).
    var valuationConcurrency = 8
    /// Whether a household's own photo analysis endpoint may be at a private, loopback or link-local address (a local
    /// Ollama or vLLM); the operator's own endpoint (`valuation.analysisURL`) may always be.
    var valuationAllowPrivateEndpoints = false
    /// Where market searches go (Tavily's API, or a compatible proxy).
    var valuationSearchURL = "https://api.tavily.com"
    /// The operator's valuation providers, for households that set none (keys are secrets).
    var valuationAnalysisURL: String?
    var valuationAnalysisModel: String?
    var valuationAnalysisKey: String?
    var valuationSearchKey: String?
    /// Every household on this server is Pro (self-hosters who build from source).
    var instancePro = false
    /// Licence-signing public keys trusted beside the built-in ones, `ID:BASE64,…` (a self-issuing operator, tests).
    var licencePublicKeys = ""
    /// For tests only: how many seconds one minute of an app-lock timeout lasts.
    var appLockSecondsPerMinute = 60
    /// Passkeys' relying party id and origin; nil: the host and address each request reached.
    var passkeysRPID: String?
    var passkeysOrigin: String?
    /// Hosts and origins the MCP endpoint accepts beside this machine's (comma-separated in the settings).
    var mcpAllowedHosts: [String] = []
    var mcpAllowedOrigins: [String] = []
    /// The database: nil for SQLite in the data folder (the default), else a PostgreSQL URL (secret: it may hold a
    /// password).
    var databaseURL: String?
    /// The most connections to PostgreSQL this server opens.
    var databaseMaxConnections = 20
    /// A schema of its own inside the PostgreSQL database (nil: PostgreSQL's default, `public`).
    var databaseSchema: String?
    /// The key that seals providers' API keys, 32 bytes in base64, the same on every server of a deployment (secret);
    /// nil: the data folder's `secrets.key`.
    var secretsKey: String?
    /// Where photos and files are kept: `local` (the data folder's blobs/) or `s3://BUCKET[/PREFIX]`.
    var blobs = "local"
    /// The S3-compatible store's address (nil: AWS's for the region), region, addressing and credentials (secret).
    var s3Endpoint: String?
    var s3Region = "us-east-1"
    var s3PathStyle = false
    var s3AccessKey: String?
    var s3SecretKey: String?
    var s3TimeoutSeconds = 30
    var s3Attempts = 4

    /// Every key, its type, and what it sets (for `--help`, the README and the start-up log).
    static let keys: [(key: String, help: String)] = [
        ("host", "Address to listen on (0.0.0.0 for other machines, behind HTTPS)"), ("port", "Port to listen on"),
        ("data", "The data folder"),
        ("database.url", "sqlite (in the data folder) or postgres://USER:PASSWORD@HOST:PORT/DATABASE, with ?sslmode=verify-full&sslrootcert=PATH for TLS (secret)"),
        ("database.maxConnections", "The most connections to PostgreSQL this server opens"),
        ("database.schema", "A schema of its own in the PostgreSQL database, made when missing (default: public)"),
        ("secrets.key", "The key that seals providers' API keys, the same on every server: 32 bytes in base64, e.g. from openssl rand -base64 32 (secret; default: the data folder's secrets.key)"),
        ("secureCookies", "Mark cookies Secure (behind HTTPS)"),
        ("logLevel", "trace, debug, info, notice, warning, error or critical"),
        ("limits.maxPhotoBytes", "Largest photo or receipt upload"), ("limits.maxArchiveBytes", "Largest backup to restore"),
        ("limits.maxCSVBytes", "Largest CSV to import"), ("limits.maxScanBytes", "Largest picture to search for a barcode"),
        ("ocr.engine", "auto, rapidocr or tesseract"), ("ocr.python", "The Python that has RapidOCR"),
        ("ocr.workers", "Receipts read at once"), ("ocr.threads", "Threads each RapidOCR worker reads with (0: the cores shared among the workers)"),
        ("ocr.queue", "Receipts waiting at most"),
        ("ocr.timeoutSeconds", "Longest one receipt may take before its worker is restarted"),
        ("jobs.reports", "Reports made at once"), ("jobs.receipts", "Receipt readings run at once"),
        ("jobs.drainSeconds", "On SIGTERM, how long running jobs may finish"),
        ("jobs.leaseSeconds", "How long a running job stays this server's without a heartbeat (renewed every third)"),
        ("session.days", "How long a sign-in lasts"), ("signIn.accountLimit", "Failed sign-ins per account per window"),
        ("signIn.clientLimit", "Failed sign-ins per client address per window"), ("signIn.windowMinutes", "The window"),
        ("http.idleTimeoutSeconds", "Idle or half-sent connections are closed after this"),
        ("api.idempotencyWindowHours", "How long an Idempotency-Key's answer is kept for replays"),
        ("api.tokenRequestsPerMinute", "Requests each personal API token may make per minute"),
        ("metrics.mode", "off, loopback or token"), ("metrics.token", "The bearer token for /metrics (secret)"),
        ("health.minFreeMegabytes", "Free space /health/ready asks for"), ("zxingWorker", "The nestory-zxing worker program"),
        ("capture.scanning", "Barcode scanning in the Capture tab (false turns it off for everyone)"),
        ("capture.photoLongSide", "Photos with a longer side are downsized in the browser before upload (pixels)"),
        ("capture.photoQuality", "The JPEG quality of a photo downsized in the browser (percent)"),
        ("webhooks.allowPrivateAddresses", "Let webhooks reach private, loopback and link-local addresses"),
        ("reminders.checkMinutes", "How often due reminders are looked for and sent to webhooks"),
        ("valuation.requestsPerMinute", "Calls to each valuation provider per minute, at most (0: no pause)"),
        ("valuation.concurrency", "Items of a valuation batch valued at once"),
        ("valuation.searchURL", "Where market searches go: Tavily's API or a compatible proxy"),
        ("valuation.analysisURL", "Photo analysis for households that set none: an OpenAI-compatible endpoint's base address"),
        ("valuation.allowPrivateEndpoints", "Let a household's own photo analysis endpoint be at a private, loopback or link-local address"),
        ("valuation.analysisModel", "That endpoint's model"), ("valuation.analysisKey", "That endpoint's API key (secret)"),
        ("valuation.searchKey", "Market search (Tavily) API key for households that set none (secret)"),
        ("licence.instancePro", "Every household on this server has Nestory Pro, without a licence key"),
        ("licence.publicKeys", "Licence-signing public keys to trust beside the built-in ones: ID:BASE64, comma-separated"),
        ("appLock.secondsPerMinute", "For tests only: the seconds one minute of an app-lock timeout lasts"),
        ("passkeys.rpID", "The domain passkeys are made for (default: the host the server is reached at)"),
        ("passkeys.origin", "The address browsers use, e.g. https://nestory.example (default: as each request reached it)"),
        ("mcp.allowedHosts", "Hosts /mcp accepts beside localhost, comma-separated, e.g. nestory.example"),
        ("mcp.allowedOrigins", "Origins /mcp accepts beside localhost's, comma-separated, e.g. https://nestory.example"),
        ("storage.blobs", "Where photos and files are kept: local (the data folder) or s3://BUCKET[/PREFIX] (default prefix blobs/)"),
        ("storage.s3.endpoint", "The S3-compatible store's address, e.g. http://127.0.0.1:9000 (default: AWS's for the region)"),
        ("storage.s3.region", "The bucket's region (for signing requests)"),
        ("storage.s3.pathStyle", "Address the bucket as ENDPOINT/BUCKET (MinIO, Garage, Ceph) instead of BUCKET.ENDPOINT"),
        ("storage.s3.accessKey", "The access key id for the bucket"), ("storage.s3.secretKey", "Its secret access key (secret)"),
        ("storage.s3.timeoutSeconds", "The longest one request to the store may take"),
        ("storage.s3.attempts", "Tries of a request the store answers with 5xx, 429 or not at all, the first included"),
    ]

    /// The keys for `nestory serve --help`: each whole, with its environment variable, and under it what it sets and its
    /// default, wrapped to `width` columns (so a key of any length is never cut, and the help is not rewrapped).
    static func help(width: Int = 78) -> String {
        let defaults = Settings().logged
        return keys.map { key, help in
            var shown = "\(defaults[key].map { "\($0)" } ?? "")"
            if shown.hasPrefix("("), shown.hasSuffix(")") { shown = String(shown.dropFirst().dropLast()) }
            var lines = ["  \(key), \(environmentName(key))"]
            var line = "     "
            for word in (help.contains("default") || shown.isEmpty ? help : "\(help) (default: \(shown))").split(separator: " ") {
                if line.count + 1 + word.count > width, line.count > 5 {
                    lines.append(line)
                    line = "     "
                }
                line += " \(word)"
            }
            return (lines + [line]).joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// The environment variable for `key`, as swift-configuration's environment provider names it: NESTORY_, then each
    /// part of the key in capitals, with a word break where a small letter meets a capital (`limits.maxPhotoBytes` is
    /// NESTORY_LIMITS_MAX_PHOTO_BYTES), so capitals in a row stay one word (`limits.maxCSVBytes` is
    /// NESTORY_LIMITS_MAX_CSVBYTES).
    static func environmentName(_ key: String) -> String {
        (["nestory"] + key.split(separator: ".")).map { part in
            var word = ""
            var previous: Character?
            for character in part {
                if let previous, previous.isLowercase, character.isUppercase { word += "_" }
                word += character.isLetter || character.isNumber ? character.uppercased() : "_"
                previous = character
            }
            return word
        }.joined(separator: "_")
    }

    /// NESTORY_ variables that are not a setting's but a letter or two from one (NESTORY_LIMITS_MAX_CSV_BYTES): each
    /// is ignored, so the setting keeps its default; the server says so at start. Variables nowhere near a setting's
    /// are left alone, as other programs may share the prefix (and the commands' own: NESTORY_CONFIG, NESTORY_PASSWORD,
    /// NESTORY_TOKEN).
    static func misspeltEnvironment(_ environment: [String: String]) -> [String] {
        let names = Dictionary(uniqueKeysWithValues: keys.map { (environmentName($0.key), $0.key) })
        let commands: Set<String> = ["NESTORY_CONFIG", "NESTORY_PASSWORD", "NESTORY_TOKEN"]
        return environment.keys.sorted().compactMap { variable in
            guard variable.hasPrefix("NESTORY_"), names[variable] == nil, !commands.contains(variable),
                  let meant = Text.closest(to: variable, among: names.keys.sorted()), let key = names[meant] else { return nil }
            return "\(variable) is not a setting Nestory has, and is ignored (did you mean \(meant), for \(key)?)"
        }
    }

    /// Keys whose values are secrets: never logged, redacted by the configuration reader.
    static let secretKeys: Set<String> = ["database.url", "secrets.key", "metrics.token", "valuation.analysisKey", "valuation.searchKey", "storage.s3.secretKey"]

    enum Invalid: Error, CustomStringConvertible {
        case value(String, String)
        /// The settings file (its path) cannot be read as settings: why.
        case file(String, String)
        var description: String {
            switch self {
            case .value(let key, let message): return "The setting \(key) \(message)."
            case .file(let path, let message): return "The settings file \(path) \(message)."
            }
        }
    }

    /// Reads the settings: `flags` (what the command line said, by key), the environment, the file, defaults.
    static func read(flags: [String: String], environment: [String: String] = ProcessInfo.processInfo.environment) async throws -> Settings {
        var providers: [any ConfigProvider] = [
            InMemoryProvider(name: "flags", values: Dictionary(uniqueKeysWithValues: flags.map { key, value in
                (AbsoluteConfigKey(key.split(separator: ".").map(String.init)), ConfigValue(.string(value), isSecret: Self.secretKeys.contains(key)))
            })),
            EnvironmentVariablesProvider(environmentVariables: environment, secretsSpecifier: .specific(Set(secretKeys.map(environmentName))))
                .prefixKeys(with: "nestory"),
        ]
        // A key that nothing reads is almost always a typo (limits.maxPhotobytes), which would leave the default in place
        // unnoticed: on the command line and in the file it is an error. In the environment, where other programs'
        // NESTORY_ variables may be, one close to a setting's is only a warning at start (`misspeltEnvironment`).
        for key in flags.keys.sorted() where key != "config" { try checkKnown(key, from: "--set") }
        if let file = flags["config"] ?? environment["NESTORY_CONFIG"], !file.isEmpty {
            // Read and checked here first, so a file that is not one JSON object is named with what is wrong with it.
            let keys = try leafKeys(ofJSONFile: file)
            providers.append(try await FileProvider<JSONSnapshot>(filePath: .init(file)))
            for key in keys { try checkKnown(key, from: file) }
        }
        let config = ConfigReader(providers: providers)
        var settings = Settings()
        // Every value is read as text (flags and the environment are text; a file's numbers are accepted too)
        // and checked here, so a wrong value is an error that names its key, never a silent default.
        func text(_ key: String, secret: Bool = false) -> String? {
            let configKey = ConfigKey(key.split(separator: ".").map(String.init))
            if let value = config.string(forKey: configKey, isSecret: secret) { return value }
            if let value = config.int(forKey: configKey) { return String(value) }
            if let value = config.bool(forKey: configKey) { return String(value) }
            return nil
        }
        func int<T: FixedWidthInteger>(_ key: String, _ target: inout T, range: ClosedRange<T>) throws {
            guard let raw = text(key) else { return }
            guard let value = T(raw.trimmingCharacters(in: .whitespaces)), range.contains(value) else {
                throw Invalid.value(key, "must be a whole number from \(range.lowerBound) to \(range.upperBound) (it is \(raw))")
            }
            target = value
        }
        func choice(_ key: String, _ target: inout String, _ allowed: [String]) throws {
            guard let raw = text(key)?.lowercased() else { return }
            guard allowed.contains(raw) else { throw Invalid.value(key, "must be one of \(allowed.joined(separator: ", ")) (it is \(raw))") }
            target = raw
        }
        if let host = text("host") { settings.host = host }
        try int("port", &settings.port, range: 1...65_535)
        if let data = text("data") { settings.data = data }
        if let url = text("database.url", secret: true)?.trimmingCharacters(in: .whitespaces), !url.isEmpty, url.lowercased() != "sqlite" {
            do { _ = try PostgresLocation(url: url) } catch {
                guard case .invalidURL(let why) = error else { throw error }
                throw Invalid.value("database.url", "must be sqlite or a postgres:// URL: \(why)")
            }
            settings.databaseURL = url
        }
        func bool(_ key: String, _ target: inout Bool) throws {
            guard let raw = text(key) else { return }
            switch raw.lowercased() {
            case "1", "true", "yes", "on": target = true
            case "0", "false", "no", "off": target = false
            default: throw Invalid.value(key, "must be true or false (it is \(raw))")
            }
        }
        try bool("secureCookies", &settings.secureCookies)
        try bool("capture.scanning", &settings.scanning)
        try bool("webhooks.allowPrivateAddresses", &settings.webhooksAllowPrivate)
        try bool("valuation.allowPrivateEndpoints", &settings.valuationAllowPrivateEndpoints)
        try int("reminders.checkMinutes", &settings.remindersCheckMinutes, range: 1...1440)
        try int("appLock.secondsPerMinute", &settings.appLockSecondsPerMinute, range: 1...60)
        settings.passkeysRPID = text("passkeys.rpID").flatMap { $0.isEmpty ? nil : $0.lowercased() }
        settings.mcpAllowedHosts = (text("mcp.allowedHosts") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        settings.mcpAllowedOrigins = (text("mcp.allowedOrigins") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        if let origin = text("passkeys.origin"), !origin.isEmpty {
            guard let url = URL(string: origin), ["http", "https"].contains(url.scheme ?? ""), url.host != nil, url.path.isEmpty else {
                throw Invalid.value("passkeys.origin", "must be a scheme and host such as https://nestory.example (it is \(origin))")
            }
            settings.passkeysOrigin = origin
        }
        if let raw = text("logLevel") {
            guard let level = Logger.Level(rawValue: raw.lowercased()) else {
                throw Invalid.value("logLevel", "must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")) (it is \(raw))")
            }
            settings.logLevel = level
        }
        try int("limits.maxPhotoBytes", &settings.maxPhotoBytes, range: 100_000...2_000_000_000)
        try int("limits.maxArchiveBytes", &settings.maxArchiveBytes, range: 1_000_000...Int64.max)
        try int("limits.maxCSVBytes", &settings.maxCSVBytes, range: 1_000...2_000_000_000)
        try int("limits.maxScanBytes", &settings.maxScanBytes, range: 100_000...200_000_000)
        try int("capture.photoLongSide", &settings.photoLongSide, range: 640...20_000)
        try int("capture.photoQuality", &settings.photoQuality, range: 30...100)
        try choice("ocr.engine", &settings.ocrEngine, ["auto", "rapidocr", "tesseract"])
        if let python = text("ocr.python"), !python.isEmpty { settings.ocrPython = python }
        try int("ocr.workers", &settings.ocrWorkers, range: 1...64)
        try int("ocr.threads", &settings.ocrThreads, range: 0...64)
        try int("ocr.queue", &settings.ocrQueue, range: 0...10_000)
        try int("ocr.timeoutSeconds", &settings.ocrTimeoutSeconds, range: 5...3600)
        try int("jobs.reports", &settings.reportJobs, range: 1...64)
        try int("jobs.receipts", &settings.receiptJobs, range: 1...64)
        try int("jobs.drainSeconds", &settings.drainSeconds, range: 0...3600)
        try int("jobs.leaseSeconds", &settings.jobLeaseSeconds, range: 3...3600)
        try int("database.maxConnections", &settings.databaseMaxConnections, range: 1...1000)
        if let schema = text("database.schema")?.trimmingCharacters(in: .whitespaces), !schema.isEmpty {
            guard schema.range(of: "^[a-z_][a-z0-9_]{0,62}$", options: .regularExpression) != nil else {
                throw Invalid.value("database.schema", "must be lower-case letters, digits and _, starting with a letter or _ (it is \(schema))")
            }
            settings.databaseSchema = schema
        }
        if let key = text("secrets.key", secret: true)?.trimmingCharacters(in: .whitespaces), !key.isEmpty {
            guard (try? SecretBox(base64Key: key)) != nil else {
                throw Invalid.value("secrets.key", "must be 32 bytes in base64, e.g. from openssl rand -base64 32")
            }
            settings.secretsKey = key
        }
        try int("session.days", &settings.sessionDays, range: 1...365)
        try int("signIn.accountLimit", &settings.signInAccountLimit, range: 1...10_000)
        try int("signIn.clientLimit", &settings.signInClientLimit, range: 1...100_000)
        try int("signIn.windowMinutes", &settings.signInWindowMinutes, range: 1...1440)
        try int("http.idleTimeoutSeconds", &settings.idleTimeoutSeconds, range: 1...3600)
        try int("api.idempotencyWindowHours", &settings.idempotencyWindowHours, range: 1...720)
        try int("api.tokenRequestsPerMinute", &settings.tokenRequestsPerMinute, range: 1...1_000_000)
        try choice("metrics.mode", &settings.metrics, ["off", "loopback", "token"])
        settings.metricsToken = text("metrics.token", secret: true).flatMap { $0.isEmpty ? nil : $0 }
        if settings.metrics == "token", (settings.metricsToken?.count ?? 0) < 16 {
            throw Invalid.value("metrics.token", "must be at least 16 characters when metrics.mode is token")
        }
        try int("health.minFreeMegabytes", &settings.minFreeMegabytes, range: 0...10_000_000)
        settings.zxingWorker = text("zxingWorker").flatMap { $0.isEmpty ? nil : $0 }
        try int("valuation.requestsPerMinute", &settings.valuationRequestsPerMinute, range: 0...6000)
        try int("valuation.concurrency", &settings.valuationConcurrency, range: 1...64)
        if let url = text("valuation.searchURL") {
            guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""), parsed.host != nil else {
                throw Invalid.value("valuation.searchURL", "must be an http(s) address (it is \(url))")
            }
            settings.valuationSearchURL = url
        }
        func optional(_ key: String, secret: Bool = false) -> String? { text(key, secret: secret).flatMap { $0.isEmpty ? nil : $0 } }
        settings.valuationAnalysisURL = optional("valuation.analysisURL")
        if let url = settings.valuationAnalysisURL {
            guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""), parsed.host != nil else {
                throw Invalid.value("valuation.analysisURL", "must be an http(s) address (it is \(url))")
            }
        }
        settings.valuationAnalysisModel = optional("valuation.analysisModel")
        settings.valuationAnalysisKey = optional("valuation.analysisKey", secret: true)
        settings.valuationSearchKey = optional("valuation.searchKey", secret: true)
        try bool("licence.instancePro", &settings.instancePro)
        if let keys = text("licence.publicKeys") {
            do { _ = try LicenceKeys.parse(keys) } catch { throw Invalid.value("licence.publicKeys", "is not a list of ID:BASE64 keys: \(error)") }
            settings.licencePublicKeys = keys
        }
        try readStorage(&settings, text: { key, secret in text(key, secret: secret) }, bool: bool,
                        int: { key, target, range in try int(key, &target, range: range) })
        return settings
    }

    /// Throws when `key` is not one of ``keys``, with the known key it most likely meant.
    static func checkKnown(_ key: String, from source: String) throws {
        guard !keys.contains(where: { $0.key == key }) else { return }
        let hint = Text.closest(to: key, among: keys.map(\.key)).map { " (did you mean \($0)?)" } ?? ""
        throw Invalid.value(key, "(in \(source)) is not a setting Nestory has\(hint); nestory serve --help lists them")
    }

    /// The dotted paths of a JSON file's values (`{"limits": {"maxPhotoBytes": 1}}`: `limits.maxPhotoBytes`); none when
    /// it is not a JSON object (the file provider says what is wrong with it).
    static func leafKeys(ofJSONFile path: String) throws(Invalid) -> [String] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { throw .file(path, "does not exist") }
        guard !isFolder.boolValue else { throw .file(path, "is a folder: give the path of a JSON file") }
        guard let data = FileManager.default.contents(atPath: path) else { throw .file(path, "cannot be read (check its permissions)") }
        let parsed: Any
        do { parsed = try JSONSerialization.jsonObject(with: data) } catch {
            let why = ((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String).map { ": \($0.trimmingCharacters(in: CharacterSet(charactersIn: ". ")))" } ?? ""
            throw .file(path, "is not valid JSON\(why)")
        }
        guard let object = parsed as? [String: Any] else { throw .file(path, #"must hold one JSON object of settings, such as {"port": 8080}"#) }
        func walk(_ object: [String: Any], _ prefix: String) -> [String] {
            object.keys.sorted().flatMap { name in
                let path = prefix.isEmpty ? name : prefix + "." + name
                return (object[name] as? [String: Any]).map { walk($0, path) } ?? [path]
            }
        }
        return walk(object, "")
    }

    /// The `storage.` keys: checked here, so a wrong bucket, address or missing key stops the start with its name.
    private static func readStorage(_ settings: inout Settings, text: (String, Bool) -> String?, bool: (String, inout Bool) throws -> Void,
                                    int: (String, inout Int, ClosedRange<Int>) throws -> Void) throws {
        if let blobs = text("storage.blobs", false)?.trimmingCharacters(in: .whitespaces), !blobs.isEmpty {
            guard blobs == "local" || S3Location.parse(blobs) != nil else {
                throw Invalid.value("storage.blobs", "must be local or s3://BUCKET[/PREFIX] with a bucket name of 3 to 63 lowercase letters, digits, dots and hyphens (it is \(blobs))")
            }
            settings.blobs = blobs
        }
        if let endpoint = text("storage.s3.endpoint", false), !endpoint.isEmpty {
            guard let url = URL(string: endpoint), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil, url.query == nil else {
                throw Invalid.value("storage.s3.endpoint", "must be an http(s) address such as http://127.0.0.1:9000 (it is \(endpoint))")
            }
            settings.s3Endpoint = endpoint
        }
        if let region = text("storage.s3.region", false), !region.isEmpty { settings.s3Region = region }
        try bool("storage.s3.pathStyle", &settings.s3PathStyle)
        settings.s3AccessKey = text("storage.s3.accessKey", false).flatMap { $0.isEmpty ? nil : $0 }
        settings.s3SecretKey = text("storage.s3.secretKey", true).flatMap { $0.isEmpty ? nil : $0 }
        try int("storage.s3.timeoutSeconds", &settings.s3TimeoutSeconds, 1...3600)
        try int("storage.s3.attempts", &settings.s3Attempts, 1...20)
        if settings.blobs != "local" {
            guard settings.s3AccessKey != nil else { throw Invalid.value("storage.s3.accessKey", "is needed when storage.blobs is \(settings.blobs)") }
            guard settings.s3SecretKey != nil else { throw Invalid.value("storage.s3.secretKey", "is needed when storage.blobs is \(settings.blobs)") }
        }
    }

    /// Where photos and files are kept: nil for the data folder (the default), else the S3-compatible store.
    var blobBackend: (any BlobBackend)? {
        guard blobs != "local", let (bucket, prefix) = S3Location.parse(blobs) else { return nil }
        let location = S3Location(bucket: bucket, prefix: prefix, endpoint: s3Endpoint.flatMap(URL.init(string:)), region: s3Region,
                                  pathStyle: s3PathStyle, accessKey: s3AccessKey ?? "", secretKey: s3SecretKey ?? "")
        return S3BlobBackend(location: location, timeout: TimeInterval(s3TimeoutSeconds),
                             retry: RetryPolicy(maxAttempts: s3Attempts, baseDelay: .milliseconds(200), maxDelay: .seconds(5)))
    }

    /// The effective settings for the start-up log, secrets redacted.
    var logged: Logger.Metadata {
        [
            "host": .string(host), "port": .stringConvertible(port), "data": .string(data),
            "database.url": .string(databaseURL.flatMap { try? PostgresLocation(url: $0).description } ?? "sqlite"),
            "database.maxConnections": .stringConvertible(databaseMaxConnections), "database.schema": .string(databaseSchema ?? "public"),
            "secrets.key": .string(secretsKey == nil ? "(the data folder's)" : "(redacted)"),
            "secureCookies": .stringConvertible(secureCookies),
            "logLevel": .string(logLevel.rawValue), "limits.maxPhotoBytes": .stringConvertible(maxPhotoBytes),
            "limits.maxArchiveBytes": .stringConvertible(maxArchiveBytes), "limits.maxCSVBytes": .stringConvertible(maxCSVBytes),
            "limits.maxScanBytes": .stringConvertible(maxScanBytes), "ocr.engine": .string(ocrEngine), "ocr.python": .string(ocrPython),
            "ocr.workers": .stringConvertible(ocrWorkers), "ocr.threads": .stringConvertible(ocrThreads), "ocr.queue": .stringConvertible(ocrQueue),
            "ocr.timeoutSeconds": .stringConvertible(ocrTimeoutSeconds), "jobs.reports": .stringConvertible(reportJobs),
            "jobs.receipts": .stringConvertible(receiptJobs), "jobs.drainSeconds": .stringConvertible(drainSeconds),
            "jobs.leaseSeconds": .stringConvertible(jobLeaseSeconds),
            "session.days": .stringConvertible(sessionDays), "signIn.accountLimit": .stringConvertible(signInAccountLimit),
            "signIn.clientLimit": .stringConvertible(signInClientLimit), "signIn.windowMinutes": .stringConvertible(signInWindowMinutes),
            "http.idleTimeoutSeconds": .stringConvertible(idleTimeoutSeconds),
            "api.idempotencyWindowHours": .stringConvertible(idempotencyWindowHours), "metrics.mode": .string(metrics),
            "api.tokenRequestsPerMinute": .stringConvertible(tokenRequestsPerMinute),
            "metrics.token": .string(metricsToken == nil ? "(none)" : "(redacted)"),
            "health.minFreeMegabytes": .stringConvertible(minFreeMegabytes), "zxingWorker": .string(zxingWorker ?? "(beside the binary)"),
            "capture.scanning": .stringConvertible(scanning), "capture.photoLongSide": .stringConvertible(photoLongSide),
            "capture.photoQuality": .stringConvertible(photoQuality),
            "webhooks.allowPrivateAddresses": .stringConvertible(webhooksAllowPrivate),
            "reminders.checkMinutes": .stringConvertible(remindersCheckMinutes),
            "valuation.requestsPerMinute": .stringConvertible(valuationRequestsPerMinute), "valuation.searchURL": .string(valuationSearchURL),
            "valuation.concurrency": .stringConvertible(valuationConcurrency),
            "valuation.analysisURL": .string(valuationAnalysisURL ?? "(none)"),
            "valuation.allowPrivateEndpoints": .stringConvertible(valuationAllowPrivateEndpoints), "valuation.analysisModel": .string(valuationAnalysisModel ?? "(none)"),
            "valuation.analysisKey": .string(valuationAnalysisKey == nil ? "(none)" : "(redacted)"),
            "valuation.searchKey": .string(valuationSearchKey == nil ? "(none)" : "(redacted)"),
            "licence.instancePro": .stringConvertible(instancePro),
            "licence.publicKeys": .string(licencePublicKeys.isEmpty ? "(built-in only)" : licencePublicKeys),
            "appLock.secondsPerMinute": .stringConvertible(appLockSecondsPerMinute),
            "passkeys.rpID": .string(passkeysRPID ?? "(the request's host)"), "passkeys.origin": .string(passkeysOrigin ?? "(the request's address)"),
            "mcp.allowedHosts": .string(mcpAllowedHosts.isEmpty ? "(localhost only)" : mcpAllowedHosts.joined(separator: ",")),
            "mcp.allowedOrigins": .string(mcpAllowedOrigins.isEmpty ? "(localhost only)" : mcpAllowedOrigins.joined(separator: ",")),
            "storage.blobs": .string(blobs), "storage.s3.endpoint": .string(s3Endpoint ?? "(AWS for the region)"),
            "storage.s3.region": .string(s3Region), "storage.s3.pathStyle": .stringConvertible(s3PathStyle),
            "storage.s3.accessKey": .string(s3AccessKey == nil ? "(none)" : "(set)"),
            "storage.s3.secretKey": .string(s3SecretKey == nil ? "(none)" : "(redacted)"),
            "storage.s3.timeoutSeconds": .stringConvertible(s3TimeoutSeconds), "storage.s3.attempts": .stringConvertible(s3Attempts),
        ]
    }

    /// Free or Pro for a household, as this server's settings have it (the server and the commands that write items).
    func plan(_ licences: any LicenceStore) -> PlanService {
        let extra = (try? LicenceKeys.parse(licencePublicKeys)) ?? [:]
        return PlanService(licences: licences, verifier: LicenceVerifier(trusted: LicenceKeys.builtIn.merging(extra) { builtIn, _ in builtIn }),
                           instancePro: instancePro)
    }

    var limits: Limits {
        var limits = Limits(maxPhotoBytes: maxPhotoBytes, maxArchiveBytes: maxArchiveBytes, maxCSVBytes: maxCSVBytes)
        limits.maxScanBytes = maxScanBytes
        limits.photoLongSide = photoLongSide
        limits.photoQuality = photoQuality
        return limits
    }
}
