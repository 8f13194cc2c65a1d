import Foundation
import Logging
@testable import NestoryCLI
import Testing

/// Settings: flags beat the environment, which beats the settings file, which beats the defaults; a wrong
/// value is an error naming its key; secrets never reach the log.
@Suite struct SettingsTests {
    static func file(_ json: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nestory-settings-\(UUID()).json").path
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func flagsThenEnvironmentThenFileThenDefaults() async throws {
        let config = try Self.file(#"{"port": 7001, "ocr": {"workers": 3, "engine": "tesseract"}, "limits": {"maxPhotoBytes": 5000000}, "logLevel": "debug"}"#)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let environment = ["NESTORY_CONFIG": config, "NESTORY_PORT": "7002", "NESTORY_OCR_WORKERS": "4", "NESTORY_SECURE_COOKIES": "1"]
        let settings = try await Settings.read(flags: ["port": "7003"], environment: environment)
        #expect(settings.port == 7003)  // the flag
        #expect(settings.ocrWorkers == 4)  // the environment over the file
        #expect(settings.ocrEngine == "tesseract" && settings.maxPhotoBytes == 5_000_000 && settings.logLevel == .debug)  // the file
        #expect(settings.secureCookies)
        #expect(try await Settings.read(flags: ["capture.scanning": "false"], environment: [:]).scanning == false)
        #expect(try await Settings.read(flags: [:], environment: ["NESTORY_CAPTURE_SCANNING": "off"]).scanning == false)
        #expect(settings.host == "127.0.0.1" && settings.reportJobs == 1 && settings.idleTimeoutSeconds == 60)  // defaults
        let noFlag = try await Settings.read(flags: [:], environment: environment)
        #expect(noFlag.port == 7002)
        let onlyFile = try await Settings.read(flags: ["config": config], environment: [:])
        #expect(onlyFile.port == 7001 && onlyFile.ocrWorkers == 3)
        #expect(try await Settings.read(flags: [:], environment: [:]) == Settings())
        #expect(Settings().idempotencyWindowHours == 24)
        #expect(try await Settings.read(flags: [:], environment: ["NESTORY_API_IDEMPOTENCY_WINDOW_HOURS": "48"]).idempotencyWindowHours == 48)
        #expect(Settings().jobLeaseSeconds == 30)
        #expect(Settings().ocrThreads == 0)  // the cores shared among the workers
        #expect(try await Settings.read(flags: ["ocr.threads": "2"], environment: [:]).ocrThreads == 2)
        #expect(try await Settings.read(flags: [:], environment: ["NESTORY_JOBS_LEASE_SECONDS": "12"]).jobLeaseSeconds == 12)
    }

    @Test func aWrongValueNamesItsKey() async throws {
        for (flags, environment, expected) in [
            (["port": "80000"], [String: String](), "port"), ([:], ["NESTORY_OCR_ENGINE": "magic"], "ocr.engine"),
            ([:], ["NESTORY_LIMITS_MAX_PHOTO_BYTES": "lots"], "limits.maxPhotoBytes"), (["logLevel": "loud"], [:], "logLevel"), (["capture.scanning": "maybe"], [:], "capture.scanning"),
            (["capture.photoQuality": "5"], [:], "capture.photoQuality"),
            (["metrics.mode": "token"], [:], "metrics.token"), (["api.idempotencyWindowHours": "0"], [:], "api.idempotencyWindowHours"), (["jobs.leaseSeconds": "1"], [:], "jobs.leaseSeconds"),
        ] {
            do {
                _ = try await Settings.read(flags: flags, environment: environment)
                Issue.record("\(flags) \(environment) was accepted")
            } catch let error as Settings.Invalid {
                #expect(error.description.hasPrefix("The setting \(expected) "), "\(error)")
            }
        }
    }

    /// A settings file that is missing, a folder, not JSON or not an object stops the start with what is wrong, naming the
    /// file (a truncated one gave Foundation's "Error Domain=NSCocoaErrorDomain Code=3840", with no path).
    @Test func aSettingsFileThatCannotBeReadIsNamedWithWhy() async throws {
        let truncated = try Self.file(#"{"port": 8094"#), list = try Self.file("[1, 2]")
        defer { for path in [truncated, list] { try? FileManager.default.removeItem(atPath: path) } }
        let folder = FileManager.default.temporaryDirectory.path
        for (path, expected) in [
            ("/no/such/file.json", "The settings file /no/such/file.json does not exist."),
            (folder, "The settings file \(folder) is a folder: give the path of a JSON file."),
            (truncated, "The settings file \(truncated) is not valid JSON: Unexpected end of file during JSON parse."),
            (list, #"The settings file \#(list) must hold one JSON object of settings, such as {"port": 8080}."#),
        ] {
            do {
                _ = try await Settings.read(flags: ["config": path], environment: [:])
                Issue.record("\(path) was accepted")
            } catch let error as Settings.Invalid {
                #expect(error.description == expected)
            }
        }
    }

    @Test func anUnknownKeyOnTheCommandLineOrInTheFileIsAnError() async throws {
        // A typo names the key it most likely meant; the default would otherwise stay in place unnoticed.
        do {
            _ = try await Settings.read(flags: ["limits.maxPhotobytes": "5000000"], environment: [:])
            Issue.record("an unknown --set key was accepted")
        } catch let error as Settings.Invalid {
            #expect(error.description == "The setting limits.maxPhotobytes (in --set) is not a setting Nestory has (did you mean limits.maxPhotoBytes?); nestory serve --help lists them.")
        }
        let config = try Self.file(#"{"port": 7001, "ocr": {"workerz": 3}}"#)
        defer { try? FileManager.default.removeItem(atPath: config) }
        do {
            _ = try await Settings.read(flags: ["config": config], environment: [:])
            Issue.record("an unknown key in the file was accepted")
        } catch let error as Settings.Invalid {
            #expect(error.description.hasPrefix("The setting ocr.workerz (in \(config)) is not a setting Nestory has (did you mean ocr.workers?)"))
        }
        do {
            _ = try await Settings.read(flags: ["nonsense": "1"], environment: [:])
            Issue.record("an unknown --set key was accepted")
        } catch let error as Settings.Invalid {
            #expect(!error.description.contains("did you mean"), "nothing is close to it")
        }
        // Every key the settings have is accepted, and the environment stays open to other programs' NESTORY_ variables.
        #expect(try Settings.leafKeys(ofJSONFile: config) == ["ocr.workerz", "port"])
        let known = try await Settings.read(flags: ["storage.s3.region": "eu-west-1", "ocr.workers": "2", "api.idempotencyWindowHours": "48"], environment: [:])
        #expect(known.s3Region == "eu-west-1" && known.ocrWorkers == 2 && known.idempotencyWindowHours == 48)
        _ = try await Settings.read(flags: [:], environment: ["NESTORY_PASSWORD": "x", "NESTORY_TEST_POSTGRES_URL": "y"])
    }

    @Test func objectStorageSettings() async throws {
        #expect(try await Settings.read(flags: [:], environment: [:]).blobBackend == nil)  // the data folder by default
        let environment = ["NESTORY_STORAGE_BLOBS": "s3://photos/nestory", "NESTORY_STORAGE_S3_ENDPOINT": "http://127.0.0.1:9000",
                           "NESTORY_STORAGE_S3_PATH_STYLE": "true", "NESTORY_STORAGE_S3_ACCESS_KEY": "AKIDEXAMPLE",
                           "NESTORY_STORAGE_S3_SECRET_KEY": "a very secret secret", "NESTORY_STORAGE_S3_REGION": "eu-west-1"]
        let settings = try await Settings.read(flags: [:], environment: environment)
        #expect(settings.blobs == "s3://photos/nestory" && settings.s3PathStyle && settings.s3Region == "eu-west-1")
        #expect(settings.blobBackend?.location == "s3://photos/nestory/ at http://127.0.0.1:9000")
        let logged = settings.logged.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        #expect(!logged.contains("a very secret") && logged.contains("storage.s3.secretKey=(redacted)") && !logged.contains("AKIDEXAMPLE"))
        for (environment, expected) in [
            (["NESTORY_STORAGE_BLOBS": "ftp://photos"], "storage.blobs"), (["NESTORY_STORAGE_BLOBS": "s3://No_Such"], "storage.blobs"),
            (["NESTORY_STORAGE_BLOBS": "s3://photos"], "storage.s3.accessKey"),
            (["NESTORY_STORAGE_BLOBS": "s3://photos", "NESTORY_STORAGE_S3_ACCESS_KEY": "AKID"], "storage.s3.secretKey"),
            (["NESTORY_STORAGE_S3_ENDPOINT": "127.0.0.1:9000"], "storage.s3.endpoint"), (["NESTORY_STORAGE_S3_PATH_STYLE": "maybe"], "storage.s3.pathStyle"),
            (["NESTORY_STORAGE_S3_ATTEMPTS": "0"], "storage.s3.attempts"),
        ] {
            do {
                _ = try await Settings.read(flags: [:], environment: environment)
                Issue.record("\(environment) was accepted")
            } catch let error as Settings.Invalid {
                #expect(error.description.hasPrefix("The setting \(expected) "), "\(error)")
            }
        }
    }

    @Test func theLoggedSettingsHideTheMetricsToken() async throws {
        let settings = try await Settings.read(flags: ["metrics.mode": "token"], environment: ["NESTORY_METRICS_TOKEN": "a secret token of length"])
        #expect(settings.metricsToken == "a secret token of length")
        let logged = settings.logged.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        #expect(!logged.contains("a secret token") && logged.contains("metrics.token=(redacted)"))
        // Every key the help lists is in the log, and the other way round.
        #expect(Set(settings.logged.keys) == Set(Settings.keys.map(\.key)))
    }

    @Test func theOperatorsValuationProvidersAreReadAndTheirKeysNeverLogged() async throws {
        let settings = try await Settings.read(flags: ["valuation.analysisURL": "http://127.0.0.1:11434/v1", "valuation.analysisModel": "llava"],
                                               environment: ["NESTORY_VALUATION_ANALYSIS_KEY": "sk-operator-secret", "NESTORY_VALUATION_SEARCH_KEY": "tvly-operator-secret"])
        #expect(settings.valuationAnalysisKey == "sk-operator-secret" && settings.valuationSearchKey == "tvly-operator-secret")
        #expect(settings.valuationAnalysisURL == "http://127.0.0.1:11434/v1" && settings.valuationAnalysisModel == "llava")
        let logged = settings.logged.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        #expect(!logged.contains("operator-secret") && logged.contains("valuation.analysisKey=(redacted)") && logged.contains("valuation.searchKey=(redacted)"))
        await #expect(throws: Settings.Invalid.self) { try await Settings.read(flags: ["valuation.analysisURL": "ftp://x"]) }
    }

    /// The variable the help names for each key is the one the server reads: set to a value the key cannot keep, it
    /// changes what is logged or stops the start naming that key. Capitals in a row are one word, as
    /// swift-configuration's environment provider has it.
    @Test func eachKeysVariableIsTheOneTheServerReads() async throws {
        #expect(Settings.environmentName("limits.maxCSVBytes") == "NESTORY_LIMITS_MAX_CSVBYTES")
        #expect(Settings.environmentName("passkeys.rpID") == "NESTORY_PASSKEYS_RP_ID")
        #expect(Settings.environmentName("storage.s3.timeoutSeconds") == "NESTORY_STORAGE_S3_TIMEOUT_SECONDS")
        #expect(try await Settings.read(flags: [:], environment: ["NESTORY_LIMITS_MAX_CSVBYTES": "5000"]).maxCSVBytes == 5000)
        let defaults = Settings().logged
        for (key, _) in Settings.keys {
            let variable = Settings.environmentName(key)
            do {
                let settings = try await Settings.read(flags: [:], environment: [variable: "7"])
                #expect(settings.logged[key].map { "\($0)" } != defaults[key].map { "\($0)" }, "\(variable) did not set \(key)")
            } catch let error as Settings.Invalid {
                #expect(error.description.hasPrefix("The setting \(key) "), "\(variable): \(error)")
            }
        }
    }

    /// A variable a letter or two from a setting's is ignored by the reader, so the server warns at start, naming the
    /// variable meant; the commands' own variables and other programs' are not mistaken for one.
    @Test func aMisspeltVariableIsNamedWithTheOneMeant() {
        let warnings = Settings.misspeltEnvironment(["NESTORY_LIMITS_MAX_CSV_BYTES": "5000", "NESTORY_PORTT": "9000", "NESTORY_PORT": "9000",
                                                     "NESTORY_PASSWORD": "x", "NESTORY_TOKEN": "x", "NESTORY_CONFIG": "x", "NESTORY_BIN": "x",
                                                     "NESTORY_TEST_POSTGRES_URL": "x", "PORTT": "1"])
        #expect(warnings == [
            "NESTORY_LIMITS_MAX_CSV_BYTES is not a setting Nestory has, and is ignored (did you mean NESTORY_LIMITS_MAX_CSVBYTES, for limits.maxCSVBytes?)",
            "NESTORY_PORTT is not a setting Nestory has, and is ignored (did you mean NESTORY_PORT, for port?)",
        ])
    }

    /// `serve --help` names every key whole (one was cut at 26 characters: webhooks.allowPrivateAddre) with its variable
    /// and default, in lines short enough that the help is not wrapped again.
    @Test func theHelpListsEveryKeyWholeWithItsVariableAndDefault() {
        let help = Settings.help()
        let lines = help.split(separator: "\n")
        for (key, _) in Settings.keys {
            #expect(lines.contains { $0 == "  \(key), \(Settings.environmentName(key))" }, "\(key)")
        }
        #expect(lines.allSatisfy { $0.count <= 78 }, "\(lines.filter { $0.count > 78 })")
        #expect(help.contains("  webhooks.allowPrivateAddresses, NESTORY_WEBHOOKS_ALLOW_PRIVATE_ADDRESSES\n      Let webhooks reach private, loopback and link-local addresses (default:\n      false)"))
        #expect(help.contains("Largest CSV to import (default: 50000000)"))
    }
}
